import { modelsClient } from '../../../clients/models';
import { CatalogModel } from '../../../core/models/catalog/catalog';
import { collect } from '../../../core/models/collect';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';

const model = CatalogModel.parse({ id: 'gpt-tools', group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192 });
const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const ctx = { caller: { header: 'lm-key' }, requestId: 'req-1' };

/**
 * The models REST client speaks group A's chat completions (OpenAI's wire) to the gateway
 * elsewhere: tools, tool choice, response format and tool results go in that wire, tool calls come
 * back from it, streamed or whole. A server speaking that wire (the OpenAI fake, which answers at
 * the deployments path too) stands for the gateway; that the gateway's own route takes them is its
 * route's test.
 */
describe('models REST client: tools', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(() => fake.close());

  it('sends tools, tool_choice and response_format; reads streamed and whole tool calls back (finish tool_calls)', async () => {
    const client = modelsClient({ baseUrl: fake.url });
    fake.script(
      { toolCalls: [{ id: 'call_a', name: 'get_weather', args: { city: 'Paris' } }] },
      { toolCalls: [{ id: 'call_b', name: 'get_weather', args: { city: 'Oslo' } }] },
    );
    const input = {
      model,
      route: 'test',
      messages: [{ role: 'user' as const, text: 'Weather in Paris?' }],
      tools: [weather],
      toolChoice: { type: 'required' as const },
      responseFormat: { type: 'json_object' as const },
    };
    expect(await collect(await client.chat(input, ctx))).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    expect(fake.requests[0].path).toBe('/proxy/api/v1/azure/openai/deployments/gpt-tools/chat/completions?api-version=2024-10-21');
    expect(fake.requests[0].json).toMatchObject({
      tools: [{ type: 'function', function: weather }],
      tool_choice: 'required',
      response_format: { type: 'json_object' },
      stream: true,
    });
    expect(await collect(await client.chat({ ...input, stream: false }, ctx))).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_b', arguments: '{"city":"Oslo"}' }],
    });
  });

  it('sends a round trip back: the assistant turn with tool_calls, the result as a tool message', async () => {
    const client = modelsClient({ baseUrl: fake.url });
    fake.script({ answer: 'Sunny.' });
    const r = await client.chat(
      {
        model,
        route: 'test',
        stream: false,
        tools: [weather],
        messages: [
          { role: 'user', text: 'Weather in Paris?' },
          { role: 'assistant', text: '', toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'tool', text: 'sunny', toolCallId: 'call_a' },
        ],
      },
      ctx,
    );
    expect(await collect(r)).toMatchObject({ text: 'Sunny.', finishReason: 'stop' });
    expect(fake.requests.at(-1)!.json.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
    ]);
  });
});
