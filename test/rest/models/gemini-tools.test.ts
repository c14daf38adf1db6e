import 'undici';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { modelsInProcess, type ModelsInProcess } from './fixture';

// @google/genai's types are ESM-only; the import resolves to its CommonJS build at run time.
const loadSdk = () => import('@google/genai');
let sdk: Awaited<ReturnType<typeof loadSdk>>;
type Sdk = typeof sdk;

const QUESTION = 'What is the weather in Paris?';

/**
 * Function calling on group B through the official @google/genai SDK (the app on an ephemeral
 * port): local-chat calls the declared function whose name matches the question, the SDK sends
 * the functionResponse back, and the answer comes from it; streamed too. A model on an
 * OpenAI-compatible upstream (a fake speaking OpenAI's wire) shows a vendor's tool calls passing
 * through both ways.
 */
describe('model gateway: group B function calling', () => {
  let p: ModelsInProcess;
  let ai: InstanceType<Sdk['GoogleGenAI']>;
  let fake: FakeOpenAi;
  let weather: { name: string; description: string; parameters: any };

  beforeAll(async () => {
    sdk = await loadSdk();
    fake = await startFakeOpenAi();
    p = await modelsInProcess({
      catalog: {
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-tools',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: { provider: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'llama3.2' },
          },
        ],
      },
      env: { MODELS_UPSTREAM_RETRIES: '0' },
    });
    const url = await p.listen();
    ai = new sdk.GoogleGenAI({ apiKey: p.key, httpOptions: { baseUrl: `${url}/proxy/api/v1/gemini` } });
    weather = {
      name: 'get_weather',
      description: 'The current weather in a city',
      parameters: { type: sdk.Type.OBJECT, properties: { city: { type: sdk.Type.STRING } }, required: ['city'] },
    };
  });
  afterAll(async () => {
    await p?.close();
    await fake?.close();
  });

  const config = (extra: Record<string, unknown> = {}) => ({ tools: [{ functionDeclarations: [weather] }], ...extra });

  it('generateContent: a functionCall part back, then the functionResponse round trip answers from the result', async () => {
    const first = await ai.models.generateContent({ model: 'local-chat', contents: QUESTION, config: config() });
    expect(first.functionCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', args: { city: 'Paris' } }]);
    expect(first.candidates![0].finishReason).toBe(sdk.FinishReason.STOP);
    const call = first.functionCalls![0];
    const second = await ai.models.generateContent({
      model: 'local-chat',
      config: config(),
      contents: [
        { role: 'user', parts: [{ text: QUESTION }] },
        first.candidates![0].content!,
        {
          role: 'user',
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { forecast: 'Sunny and 24 degrees in Paris.' } } }],
        },
      ],
    });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text).toContain('Sunny and 24 degrees in Paris.');
  });

  it('generateContentStream: the function call arrives in a chunk of the stream, whole', async () => {
    const chunks = [];
    for await (const c of await ai.models.generateContentStream({ model: 'local-chat', contents: QUESTION, config: config() }))
      chunks.push(c);
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([{ id: expect.any(String), name: 'get_weather', args: { city: 'Paris' } }]);
    expect(chunks.at(-1)!.candidates![0].finishReason).toBe(sdk.FinishReason.STOP);
    // A chat keeps the call in its history and sends the response after it.
    const chat = ai.chats.create({ model: 'local-chat', config: config() });
    const asked = await chat.sendMessage({ message: QUESTION });
    const answered = await chat.sendMessage({
      message: [{ functionResponse: { name: 'get_weather', response: { output: 'Rainy in Paris.' } } }],
    });
    expect(asked.functionCalls![0].name).toBe('get_weather');
    expect(answered.text).toContain('Rainy in Paris.');
  });

  it('toolConfig: NONE answers in text, ANY with allowedFunctionNames calls that function', async () => {
    const other = { name: 'get_time', description: 'The time somewhere', parameters: { type: sdk.Type.OBJECT, properties: {} } };
    const tools = [{ functionDeclarations: [weather, other] }];
    const none = await ai.models.generateContent({
      model: 'local-chat',
      contents: QUESTION,
      config: { tools, toolConfig: { functionCallingConfig: { mode: sdk.FunctionCallingConfigMode.NONE } } },
    });
    expect(none.functionCalls).toBeUndefined();
    expect(none.text).toEqual(expect.any(String));
    const any = await ai.models.generateContent({
      model: 'local-chat',
      contents: QUESTION,
      config: {
        tools,
        toolConfig: { functionCallingConfig: { mode: sdk.FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_time'] } },
      },
    });
    expect(any.functionCalls).toEqual([expect.objectContaining({ name: 'get_time', args: {} })]);
  });

  it('responseMimeType application/json with a responseSchema (or responseJsonSchema) answers JSON of that schema', async () => {
    const schema = { type: sdk.Type.OBJECT, properties: { answer: { type: sdk.Type.STRING } }, required: ['answer'] };
    const r = await ai.models.generateContent({
      model: 'local-chat',
      contents: 'Why do sea levels rise?',
      config: { responseMimeType: 'application/json', responseSchema: schema },
    });
    expect(Object.keys(JSON.parse(r.text!))).toEqual(['answer']);
    const j = await ai.models.generateContent({
      model: 'local-chat',
      contents: 'Why?',
      config: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { reply: { type: 'string' } } } },
    });
    expect(Object.keys(JSON.parse(j.text!))).toEqual(['reply']);
    const plain = await ai.models.generateContent({
      model: 'local-chat',
      contents: 'Why?',
      config: { responseMimeType: 'application/json' },
    });
    expect(JSON.parse(plain.text!)).toEqual({ answer: expect.any(String) });
  });

  it("refuses a function response that is not an object, and other tools, in Google's format", async () => {
    const bad = await ai.models
      .generateContent({
        model: 'local-chat',
        contents: [{ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: 'sunny' as never } }] }],
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(sdk.ApiError);
    expect((bad as InstanceType<Sdk['ApiError']>).status).toBe(400);
    const search = await ai.models
      .generateContent({ model: 'local-chat', contents: 'x', config: { tools: [{ codeExecution: {} }] } })
      .catch((e: unknown) => e);
    expect((search as InstanceType<Sdk['ApiError']>).message).toContain("'codeExecution' tools are not supported");
  });

  it("passes an OpenAI-wire upstream's tool calls through, streamed, and sends the response up as a tool message", async () => {
    fake.script({ toolCalls: [{ id: 'call_up1', name: 'get_weather', args: { city: 'Paris' } }] }, { answer: 'It is sunny in Paris.' });
    const chunks = [];
    for await (const c of await ai.models.generateContentStream({
      model: 'oc-tools',
      contents: QUESTION,
      config: config({ toolConfig: { functionCallingConfig: { mode: sdk.FunctionCallingConfigMode.ANY } } }),
    }))
      chunks.push(c);
    const call = chunks.flatMap((c) => c.functionCalls ?? [])[0];
    expect(call).toEqual({ id: 'call_up1', name: 'get_weather', args: { city: 'Paris' } });
    expect(fake.requests[0].json).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        },
      ],
      tool_choice: 'required',
    });
    const r = await ai.models.generateContent({
      model: 'oc-tools',
      config: config(),
      contents: [
        { role: 'user', parts: [{ text: QUESTION }] },
        { role: 'model', parts: [{ functionCall: call }] },
        { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { sky: 'sunny' } } }] },
      ],
    });
    expect(r.text).toBe('It is sunny in Paris.');
    expect(fake.requests[1].json.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_up1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_up1', content: '{"sky":"sunny"}' },
    ]);
  });
});
