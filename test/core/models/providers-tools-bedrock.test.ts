import type { ChatMessage, ModelProvider, ToolDefinition } from '../../../core/models/neutral';
import { bedrockProvider } from '../../../core/models/vendors/bedrock';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { startFakeBedrock, type FakeBedrock } from '../../shared/fakes/bedrock-upstream';
import { drain, failure, modelOf } from './provider-helpers';

const env = { BEDROCK_TEST_CREDENTIAL: 'AKIAFAKEACCESS01:fakeSecretAccessKey/0123456789abcdefXYZ' };
const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const ask: ChatMessage[] = [{ role: 'user', text: 'Weather in Paris and Lyon?' }];

/** Tools through the real AWS SDK's ConverseStream: toolConfig up, toolUse blocks back (streamed in pieces), toolResult blocks for results. */
describe('Bedrock adapter with tools', () => {
  let fake: FakeBedrock;
  let http: UpstreamHttp;
  let bedrock: ModelProvider;
  beforeEach(async () => {
    fake = await startFakeBedrock();
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 5000, retries: 0, retryBaseMs: 5 }); // no test here waits on a timeout: room for a loaded machine
    bedrock = bedrockProvider(modelOf({ provider: 'bedrock', baseUrl: fake.url, credentialEnv: 'BEDROCK_TEST_CREDENTIAL' }), { env, http });
  });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it('sends toolConfig; gathers contentBlockStart toolUse and its input pieces into whole calls after the text (stopReason tool_use)', async () => {
    fake.script({
      answer: 'Let me look.',
      toolCalls: [
        { id: 'tu-1', name: 'get_weather', args: { city: 'Paris' } },
        { id: 'tu-2', name: 'get_weather', args: { city: 'Lyon' } },
      ],
    });
    const r = await drain(
      await bedrock.chat!({
        model: 'amazon.nova-pro-v1:0',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'tool', name: 'get_weather' },
      }),
    );
    expect(r).toMatchObject({
      text: 'Let me look.',
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'tu-1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'tu-2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      ],
    });
    expect(fake.requests[0].json.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'The weather in a city', inputSchema: { json: weather.parameters } } }],
      toolChoice: { tool: { name: 'get_weather' } },
    });
  });

  it('auto/required become auto/any; none sends no tools; a schema goes as outputConfig, a JSON object is asked for in the system prompt', async () => {
    for (const [choice, sent] of [
      ['auto', { auto: {} }],
      ['required', { any: {} }],
    ] as const) {
      await drain(await bedrock.chat!({ model: 'm', messages: ask, tools: [weather], toolChoice: { type: choice } }));
      expect(fake.requests.at(-1)!.json.toolConfig.toolChoice).toEqual(sent);
    }
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    await drain(
      await bedrock.chat!({
        model: 'm',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'none' },
        responseFormat: { type: 'json_schema', name: 'a', schema },
      }),
    );
    expect(fake.requests.at(-1)!.json).not.toHaveProperty('toolConfig');
    expect(fake.requests.at(-1)!.json.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'a' } } },
    });
    await drain(
      await bedrock.chat!({
        model: 'm',
        messages: [{ role: 'system', text: 'Be brief.' }, ...ask],
        responseFormat: { type: 'json_object' },
      }),
    );
    expect(fake.requests.at(-1)!.json.system).toEqual([{ text: 'Be brief.' }, { text: 'Answer with one JSON object and nothing else.' }]);
  });

  it('sends the round trip back up: toolUse blocks in the assistant turn, the results as toolResult blocks of one user turn', async () => {
    fake.script({ answer: 'Sunny in Paris, rain in Lyon.' });
    const r = await drain(
      await bedrock.chat!({
        model: 'm',
        tools: [weather],
        toolChoice: { type: 'none' },
        messages: [
          ...ask,
          {
            role: 'assistant',
            text: 'Let me look.',
            toolCalls: [
              { id: 'tu-1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'tu-2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
            ],
          },
          { role: 'tool', text: '{"sky":"sunny"}', toolCallId: 'tu-1' },
          { role: 'tool', text: 'rain', toolCallId: 'tu-2' },
        ],
      }),
    );
    expect(r).toMatchObject({ text: 'Sunny in Paris, rain in Lyon.', finishReason: 'stop' });
    const sent = fake.requests[0].json;
    expect(sent.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris and Lyon?' }] },
      {
        role: 'assistant',
        content: [
          { text: 'Let me look.' },
          { toolUse: { toolUseId: 'tu-1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'tu-2', name: 'get_weather', input: { city: 'Lyon' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tu-1', content: [{ json: { sky: 'sunny' } }] } },
          { toolResult: { toolUseId: 'tu-2', content: [{ text: 'rain' }] } },
        ],
      },
    ]);
    // The history holds tool blocks: Converse wants the tools declared, the choice left to the model.
    expect(sent.toolConfig).toEqual({ tools: [expect.objectContaining({ toolSpec: expect.objectContaining({ name: 'get_weather' }) })] });
  });

  it('refuses (400, nothing sent) tool-call arguments that are not a JSON object', async () => {
    const e = await failure(
      bedrock.chat!({
        model: 'm',
        messages: [...ask, { role: 'assistant', text: '', toolCalls: [{ id: 't', name: 'get_weather', arguments: 'Paris' }] }],
      }),
    );
    expect(e).toMatchObject({ kind: 'bad_request', code: 'invalid_tool_call' });
    expect(fake.requests).toHaveLength(0);
  });
});
