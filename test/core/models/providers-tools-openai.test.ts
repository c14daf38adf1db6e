import type { ChatMessage, ModelProvider, ToolDefinition } from '../../../core/models/neutral';
import { azureOpenAiProvider } from '../../../core/models/vendors/azure';
import { openAiCompatibleProvider } from '../../../core/models/vendors/openai-compatible';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { drain, modelOf } from './provider-helpers';

const env = { AZURE_TEST_KEY: 'azure-key-0123456789abcdef' };
const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const ask: ChatMessage[] = [{ role: 'user', text: 'What is the weather in Paris?' }];

/** Tools through the OpenAI wire upstream (Azure OpenAI and the OpenAI-compatible servers share it). */
describe('OpenAI-wire adapters with tools', () => {
  let fake: FakeOpenAi;
  let http: UpstreamHttp;
  let azure: ModelProvider;
  beforeEach(async () => {
    fake = await startFakeOpenAi();
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 5000, retries: 0, retryBaseMs: 5 }); // no test here waits on a timeout: room for a loaded machine
    azure = azureOpenAiProvider(
      modelOf({ provider: 'azure-openai', baseUrl: fake.url, model: 'gpt-4o-dep', credentialEnv: 'AZURE_TEST_KEY' }),
      { env, http },
    );
  });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it('sends tools, tool_choice and response_format; gathers streamed delta.tool_calls into whole calls (finish tool_calls)', async () => {
    fake.script({
      toolCalls: [
        { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
        { id: 'call_2', name: 'get_weather', args: { city: 'Lyon' } },
      ],
    });
    const r = await drain(
      await azure.chat!({
        model: 'gpt-4o-dep',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'tool', name: 'get_weather' },
        responseFormat: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true },
      }),
    );
    expect(r).toMatchObject({
      pieces: [],
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      ],
    });
    expect(fake.requests[0].json).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'The weather in a city', parameters: weather.parameters, strict: true },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' }, strict: true } },
      stream: true,
    });
  });

  it('reads message.tool_calls of a whole answer; auto/none/required and json_object go up as OpenAI names them', async () => {
    fake.script({ toolCalls: [{ id: 'call_9', name: 'get_weather', args: { city: 'Oslo' } }] }, {}, {});
    const r = await drain(
      await azure.chat!({ model: 'd', messages: ask, tools: [weather], toolChoice: { type: 'required' }, stream: false }),
    );
    expect(r).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
    expect(fake.requests[0].json.tool_choice).toBe('required');
    await drain(
      await azure.chat!({
        model: 'd',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'none' },
        responseFormat: { type: 'json_object' },
      }),
    );
    expect(fake.requests[1].json).toMatchObject({ tool_choice: 'none', response_format: { type: 'json_object' } });
    const plain = await drain(await azure.chat!({ model: 'd', messages: ask }));
    expect(plain.toolCalls).toBeUndefined();
    expect(fake.requests[2].json).not.toHaveProperty('tools');
    expect(fake.requests[2].json).not.toHaveProperty('tool_choice');
  });

  it('sends the round trip back up: the assistant turn with tool_calls, each result as a tool message with its tool_call_id', async () => {
    const compatible = openAiCompatibleProvider(modelOf({ provider: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'llama3' }), {
      env,
      http,
    });
    fake.script({ answer: 'It is sunny in Paris.' });
    const r = await drain(
      await compatible.chat!({
        model: 'llama3',
        tools: [weather],
        messages: [
          ...ask,
          { role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'tool', text: '{"sky":"sunny"}', toolCallId: 'call_1' },
        ],
      }),
    );
    expect(r).toMatchObject({ text: 'It is sunny in Paris.', finishReason: 'stop' });
    expect(fake.requests[0].json.messages).toEqual([
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
    ]);
  });
});
