import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { ANSWER, modelsInProcess, QUESTION, SOURCES, type ModelsInProcess } from './fixture';

/**
 * The Vercel AI SDK (`ai` 6) with its providers' defaults, which speak OpenAI's Responses API:
 * `createOpenAI({ baseURL: '<base>/proxy/api/v1' })` and `createAzure({ baseURL:
 * '<base>/proxy/api/v1/azure/openai' })` (its `azure(id)`, key in `api-key`). Both validate every
 * response and event against their schemas, so a wrong shape fails here. The models service in
 * process on a listening socket; local-chat calls the tool whose name matches the question.
 */
describe("model gateway: the Vercel AI SDK's default (Responses) models", () => {
  let p: ModelsInProcess;
  const NAMES = ['@ai-sdk/openai', '@ai-sdk/azure'] as const;
  let providers: Record<(typeof NAMES)[number], (id: string) => LanguageModel>;
  /** The JSON bodies the SDKs sent, last one last. */
  const sent: { input?: { type?: string; id?: string }[] }[] = [];
  const recording: typeof fetch = async (url, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
    return fetch(url, init);
  };
  beforeAll(async () => {
    p = await modelsInProcess();
    const url = await p.listen();
    const openai = createOpenAI({ baseURL: `${url}/proxy/api/v1`, apiKey: p.key, fetch: recording });
    const azure = createAzure({ baseURL: `${url}/proxy/api/v1/azure/openai`, apiKey: p.key, fetch: recording });
    providers = { '@ai-sdk/openai': (id) => openai(id), '@ai-sdk/azure': (id) => azure(id) };
  });
  afterAll(() => p?.close());

  const weather = () =>
    tool({
      description: 'The current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, temperature_c: 21, sky: 'clear' }),
    });
  const RESULT = 'weather returned: {"city":"Paris","temperature_c":21,"sky":"clear"}';

  it.each(NAMES)('generateText answers from the system prompt, with usage and finish reason (%s)', async (name) => {
    const model = providers[name];
    const r = await generateText({ model: model('local-chat'), system: SOURCES, prompt: QUESTION, maxRetries: 0 });
    expect(r.text).toContain(ANSWER);
    expect(r.finishReason).toBe('stop');
    expect(r.usage.inputTokens).toBeGreaterThan(10);
    expect(r.usage.totalTokens).toBe(r.usage.inputTokens! + r.usage.outputTokens!);
    expect(r.response.id).toMatch(/^resp_/);
  });

  it.each(NAMES)('streamText streams the same answer (%s)', async (name) => {
    const model = providers[name];
    const whole = await generateText({ model: model('local-chat'), system: SOURCES, prompt: QUESTION, maxRetries: 0 });
    const errors: unknown[] = [];
    const s = streamText({
      model: model('local-chat'),
      system: SOURCES,
      prompt: QUESTION,
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const pieces: string[] = [];
    for await (const t of s.textStream) pieces.push(t);
    expect(errors).toEqual([]);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(whole.text);
    expect(await s.finishReason).toBe('stop');
    expect(await s.usage).toEqual(whole.usage);
  });

  it.each(NAMES)('generateText runs a tool round trip: the call, the tool run, the answer from its result (%s)', async (name) => {
    const model = providers[name];
    const r = await generateText({
      model: model('local-chat'),
      prompt: 'What is the weather in Paris?',
      tools: { weather: weather() },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0].finishReason).toBe('tool-calls');
    expect(r.steps[0].toolCalls).toEqual([expect.objectContaining({ toolName: 'weather', input: { city: 'Paris' } })]);
    expect(r.steps[0].toolResults).toEqual([
      expect.objectContaining({ toolName: 'weather', output: { city: 'Paris', temperature_c: 21, sky: 'clear' } }),
    ]);
    expect(r.text).toBe(RESULT);
    expect(r.finishReason).toBe('stop');
  });

  it.each(NAMES)('streamText runs the same round trip, streamed (%s)', async (name) => {
    const model = providers[name];
    const errors: unknown[] = [];
    const s = streamText({
      model: model('local-chat'),
      prompt: 'What is the weather in Paris?',
      tools: { weather: weather() },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const kinds: string[] = [];
    for await (const part of s.fullStream) kinds.push(part.type);
    expect(errors).toEqual([]);
    expect(kinds).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'text-delta']));
    expect(kinds.indexOf('tool-result')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(await s.text).toBe(RESULT);
    expect(await s.steps).toHaveLength(2);
  });

  it.each(NAMES)(
    "a multi-turn chat with the defaults: turn 2 sends turn 1's answer back as an item_reference, resolved from the stored response (%s)",
    async (name) => {
      const model = providers[name];
      const history: ModelMessage[] = [{ role: 'user', content: QUESTION }];
      const first = await generateText({ model: model('local-chat'), system: SOURCES, messages: history, maxRetries: 0 });
      expect(first.text).toContain(ANSWER);
      history.push(...first.response.messages, { role: 'user', content: 'Why do glaciers retreat?' });
      const second = streamText({ model: model('local-chat'), system: SOURCES, messages: history, maxRetries: 0 });
      expect(await second.text).toContain('Glaciers retreat as the climate warms.');
      expect(sent.at(-1)!.input!.filter((i) => i.type === 'item_reference')).toEqual([
        { type: 'item_reference', id: expect.stringMatching(/^msg_/) },
      ]);
      history.push(...(await second.response).messages, { role: 'user', content: 'What does sourdough bread need?' });
      const third = await generateText({ model: model('local-chat'), system: SOURCES, messages: history, maxRetries: 0 });
      expect(third.text).toContain('Sourdough bread needs a starter.');
      expect(sent.at(-1)!.input!.filter((i) => i.type === 'item_reference')).toHaveLength(2);
    },
  );

  it.each(NAMES)('a tool round trip, then a next turn that names the earlier answer by reference (%s)', async (name) => {
    const model = providers[name];
    const history: ModelMessage[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await generateText({
      model: model('local-chat'),
      messages: history,
      tools: { weather: weather() },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(first.text).toBe(RESULT);
    history.push(...first.response.messages, { role: 'user', content: 'Thanks!' });
    // Refused (404) if the reference to the answer were not resolved from the stored response.
    const next = await generateText({ model: model('local-chat'), messages: history, maxRetries: 0 });
    expect(next.finishReason).toBe('stop');
    expect(next.response.id).toMatch(/^resp_/);
    expect(sent.at(-1)!.input!.map((i) => i.type)).toEqual(
      expect.arrayContaining(['function_call', 'function_call_output', 'item_reference']),
    );
  });

  it('JSON output with a schema (Output.object through text.format json_schema)', async () => {
    const { Output } = await import('ai');
    const model = providers['@ai-sdk/openai'];
    const r = await generateText({
      model: model('local-chat'),
      system: SOURCES,
      prompt: QUESTION,
      maxRetries: 0,
      output: Output.object({ schema: z.object({ answer: z.string() }) }),
    });
    expect(r.output.answer).toContain(ANSWER);
  });

  it("an unknown model is the SDK's API error with the status and OpenAI's message", async () => {
    for (const model of Object.values(providers)) {
      const err = await generateText({ model: model('gpt-nothing'), prompt: 'hi', maxRetries: 0 }).catch((e) => e);
      expect(err).toMatchObject({ statusCode: 404, message: 'The model "gpt-nothing" does not exist' });
    }
  });
});
