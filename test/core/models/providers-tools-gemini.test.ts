import type { ChatMessage, ModelProvider, ToolDefinition } from '../../../core/models/neutral';
import { geminiProvider } from '../../../core/models/vendors/gemini';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { startFakeGemini, type FakeGemini } from '../../shared/fakes/gemini-upstream';
import { drain, failure, modelOf } from './provider-helpers';

const env = { GEMINI_TEST_KEY: 'AIzaFakeGeminiKey0123456789' };
const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const ask: ChatMessage[] = [
  { role: 'system', text: 'Be brief.' },
  { role: 'user', text: 'Weather in Paris and Lyon?' },
];

/** Tools through the Gemini API: functionDeclarations and toolConfig up, functionCall parts back, functionResponse parts for results. */
describe('Gemini adapter with tools', () => {
  let fake: FakeGemini;
  let http: UpstreamHttp;
  let gemini: ModelProvider;
  beforeEach(async () => {
    fake = await startFakeGemini();
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 5000, retries: 0, retryBaseMs: 5 }); // no test here waits on a timeout: room for a loaded machine
    gemini = geminiProvider(modelOf({ provider: 'gemini', baseUrl: fake.url, credentialEnv: 'GEMINI_TEST_KEY' }), { env, http });
  });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it("declares the tools and the choice; streamed functionCall parts become calls (Gemini's id, else one made), finish tool_calls", async () => {
    fake.script({
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { id: 'g-2', name: 'get_weather', args: { city: 'Lyon' } },
      ],
    });
    const r = await drain(
      await gemini.chat!({ model: 'gemini-2.5-flash', messages: ask, tools: [weather], toolChoice: { type: 'tool', name: 'get_weather' } }),
    );
    expect(r).toMatchObject({
      pieces: [],
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'g-2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      ],
    });
    expect(fake.requests[0].json).toMatchObject({
      tools: [
        { functionDeclarations: [{ name: 'get_weather', description: 'The weather in a city', parametersJsonSchema: weather.parameters }] },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    });
  });

  it('reads calls from a whole answer; auto/none/required become AUTO/NONE/ANY; JSON answers ask for application/json with the schema', async () => {
    fake.script({ toolCalls: [{ name: 'get_weather', args: { city: 'Oslo' } }] }, {}, {}, {});
    const r = await drain(
      await gemini.chat!({ model: 'g', messages: ask, tools: [weather], toolChoice: { type: 'required' }, stream: false }),
    );
    expect(r).toMatchObject({ finishReason: 'tool_calls', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    expect(fake.requests[0].json.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    await drain(
      await gemini.chat!({
        model: 'g',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'none' },
        responseFormat: { type: 'json_object' },
      }),
    );
    expect(fake.requests[1].json).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
      generationConfig: { responseMimeType: 'application/json' },
    });
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    await drain(
      await gemini.chat!({
        model: 'g',
        messages: ask,
        tools: [weather],
        toolChoice: { type: 'auto' },
        responseFormat: { type: 'json_schema', name: 'a', schema },
      }),
    );
    expect(fake.requests[2].json).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    const plain = await drain(await gemini.chat!({ model: 'g', messages: ask }));
    expect(plain).toMatchObject({ finishReason: 'stop' });
    expect(plain.toolCalls).toBeUndefined();
    expect(fake.requests[3].json).not.toHaveProperty('tools');
  });

  it('sends the round trip back up: functionCall parts in the model turn, the results as functionResponse parts of one user turn', async () => {
    fake.script({ answer: 'Sunny in Paris, rain in Lyon.' });
    const r = await drain(
      await gemini.chat!({
        model: 'g',
        tools: [weather],
        messages: [
          ...ask,
          {
            role: 'assistant',
            text: '',
            toolCalls: [
              { id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'g-2', name: 'get_weather', arguments: '{"city":"Lyon"}' },
            ],
          },
          { role: 'tool', text: '{"sky":"sunny"}', toolCallId: 'call_0' },
          { role: 'tool', text: 'rain', toolCallId: 'g-2', toolName: 'get_weather' },
        ],
      }),
    );
    expect(r).toMatchObject({ text: 'Sunny in Paris, rain in Lyon.', finishReason: 'stop' });
    expect(fake.requests[0].json.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Lyon?' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'call_0', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'skip_thought_signature_validator',
          },
          { functionCall: { id: 'g-2', name: 'get_weather', args: { city: 'Lyon' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_0', name: 'get_weather', response: { sky: 'sunny' } } },
          { functionResponse: { id: 'g-2', name: 'get_weather', response: { output: 'rain' } } },
        ],
      },
    ]);
  });

  it('refuses (400, nothing sent) arguments that are not a JSON object and a result that answers no call', async () => {
    const call = (messages: ChatMessage[]) => failure(gemini.chat!({ model: 'g', messages }));
    expect(
      await call([...ask, { role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'get_weather', arguments: '[1]' }] }]),
    ).toMatchObject({ kind: 'bad_request', code: 'invalid_tool_call' });
    expect(await call([...ask, { role: 'tool', text: 'x', toolCallId: 'nowhere' }])).toMatchObject({
      kind: 'bad_request',
      code: 'invalid_tool_result',
    });
    expect(fake.requests).toHaveLength(0);
  });
});
