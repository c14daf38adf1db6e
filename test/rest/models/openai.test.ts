import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, toFile } from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { z } from 'zod';
import { hashingEmbedder } from '../../../core/shared/text/embedder';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { groupCCatalog, modelsInProcess, SOURCES, type ModelsInProcess } from './fixture';

/**
 * The OpenAI-compatible door: the gateway's prefix as the `openai` SDK's base URL, unchanged
 * otherwise (its key as `Authorization: Bearer`), in process on an ephemeral port: chat (plain,
 * streamed, tools round trips, structured output), embeddings, the model list, images and
 * transcriptions (a fake OpenAI upstream: no transcription model is built in), and the errors.
 */
const weatherTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};
const QUESTION = 'What is the weather in Paris?';
const WEATHER = { city: 'Paris', temperature: 21, sky: 'sunny' };

describe('the OpenAI-compatible door, through the openai SDK', () => {
  let upstream: FakeOpenAi;
  let p: ModelsInProcess;
  let base: string;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    const catalog = groupCCatalog();
    catalog.models.push({
      id: 'whisper',
      group: 'A',
      kind: 'transcription',
      upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'whisper-1' } as never,
      contextLength: 4000,
    } as never);
    p = await modelsInProcess({ catalog });
    base = `${await p.listen()}/proxy/api/v1`;
    client = new OpenAI({ baseURL: base, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await p?.close();
    await upstream?.close();
  });

  it('chat: answers from the context, with usage; any catalog chat model, whatever its group', async () => {
    const r = await client.chat.completions.create({
      model: 'local-chat',
      messages: [
        { role: 'system', content: SOURCES },
        { role: 'user', content: 'Why do sea levels rise?' },
      ],
    });
    expect(r).toMatchObject({
      object: 'chat.completion',
      model: 'local-chat',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant' } }],
    });
    expect(r.choices[0].message.content).toContain('Sea levels rise as ice melts.');
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    const groupC = await client.chat.completions.create({
      model: 'nova-local',
      messages: [
        { role: 'system', content: SOURCES },
        { role: 'user', content: 'Why do sea levels rise?' },
      ],
    });
    expect(groupC.choices[0].message.content).toBe(r.choices[0].message.content);
  });

  it("chat stream: the SDK's stream helper gathers the same answer as chunks", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: SOURCES },
      { role: 'user', content: 'Why do sea levels rise?' },
    ];
    const whole = await client.chat.completions.create({ model: 'local-chat', messages });
    const stream = client.chat.completions.stream({ model: 'local-chat', messages, stream_options: { include_usage: true } });
    let deltas = 0;
    stream.on('content', () => deltas++);
    const final = await stream.finalChatCompletion();
    expect(deltas).toBeGreaterThan(1);
    expect(final.choices[0].message.content).toBe(whole.choices[0].message.content);
    expect(final.choices[0].finish_reason).toBe('stop');
    expect(final.usage).toEqual(whole.usage);
  });

  it('tools round trip: the model calls get_weather, the result goes back, it answers from it', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
    const first = await client.chat.completions.create({
      model: 'local-chat',
      messages,
      tools: [weatherTool],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    const choice = first.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0];
    expect(call).toMatchObject({ type: 'function', id: expect.stringMatching(/^call_/), function: { name: 'get_weather' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Paris' });
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(WEATHER) });
    const second = await client.chat.completions.create({ model: 'local-chat', messages, tools: [weatherTool] });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toContain('"temperature":21');
  });

  it("tools round trip streamed: delta.tool_calls before the finish chunk; the SDK's runTools runs the function and sends its result back", async () => {
    const stream = await client.chat.completions.create({
      model: 'local-chat',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [weatherTool],
      stream: true,
    });
    const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
        const c = (calls[d.index] ??= { arguments: '' });
        c.id ??= d.id;
        c.name ??= d.function?.name;
        c.arguments += d.function?.arguments ?? '';
      }
      finishes.push(chunk.choices[0]?.finish_reason ?? null);
    }
    expect(Object.values(calls)).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(finishes.at(-1)).toBe('tool_calls');

    const asked: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: 'local-chat',
      stream: true,
      messages: [{ role: 'user', content: QUESTION }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The current weather in a city',
            parameters: weatherTool.function.parameters!,
            parse: JSON.parse,
            function: (args: unknown) => (asked.push(args), WEATHER),
          },
        },
      ],
    });
    const answer = await runner.finalContent();
    expect(asked).toEqual([{ city: 'Paris' }]);
    expect(answer).toContain('"sky":"sunny"');
  });

  it("structured output: json_schema through the SDK's parse helper, json_object", async () => {
    const Answer = z.object({ answer: z.string() });
    const parsed = await client.chat.completions.parse({
      model: 'local-chat',
      messages: [
        { role: 'system', content: SOURCES },
        { role: 'user', content: 'Why do sea levels rise?' },
      ],
      response_format: zodResponseFormat(Answer, 'answer'),
    });
    expect(parsed.choices[0].message.parsed).toEqual({ answer: expect.stringContaining('Sea levels rise as ice melts.') });
    const json = await client.chat.completions.create({
      model: 'local-chat',
      messages: [{ role: 'user', content: 'Why do sea levels rise?' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(json.choices[0].message.content!)).toHaveProperty('answer');
  });

  it("embeddings: base64 (the SDK's default, decoded by it) and float agree with the search embedder", async () => {
    const byDefault = await client.embeddings.create({ model: 'local-embed', input: ['glaciers retreat', 'sourdough bread'] });
    const floats = await client.embeddings.create({
      model: 'local-embed',
      input: ['glaciers retreat', 'sourdough bread'],
      encoding_format: 'float',
    });
    const [same] = await hashingEmbedder().embed(['glaciers retreat']);
    expect(byDefault.data).toHaveLength(2);
    expect(byDefault.data[0].embedding).toEqual(Array.from(same));
    expect(floats.data[0].embedding).toEqual(byDefault.data[0].embedding);
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("models: list (with the gateway's own fields) and retrieve; an unknown model is 404", async () => {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['local-chat', 'local-embed', 'local-image', 'nova-local', 'whisper']));
    expect(await client.models.retrieve('local-chat')).toMatchObject({
      id: 'local-chat',
      object: 'model',
      owned_by: 'local',
      kind: 'chat',
      context_length: 8192,
    });
    expect(await client.models.retrieve('us.local.nova-pro-v1:0')).toMatchObject({ id: 'us.local.nova-pro-v1:0', group: 'C' });
    await expect(client.models.retrieve('gpt-nothing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('images: the local image model draws a PNG', async () => {
    const r = await client.images.generate({
      model: 'local-image',
      prompt: 'A lighthouse at dusk',
      size: '256x256',
      response_format: 'b64_json',
    });
    expect(Buffer.from(r.data![0].b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(r.data![0].revised_prompt).toContain('A lighthouse at dusk');
  });

  it('audio transcriptions: multipart with the model in the form, through an OpenAI upstream', async () => {
    const file = await toFile(Buffer.from('RIFF$\0\0\0WAVEfmt fake audio bytes'), 'greeting.wav', { type: 'audio/wav' });
    expect(await client.audio.transcriptions.create({ file, model: 'whisper', language: 'en' })).toEqual({
      text: 'Hello there. General Kenobi.',
    });
    expect(upstream.requests.at(-1)!.path).toBe('/v1/audio/transcriptions');
    await expect(client.audio.transcriptions.create({ file, model: 'no-such-model' })).rejects.toMatchObject({
      status: 404,
      param: 'model',
      code: 'model_not_found',
    });
  });

  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    request(p.app)
      .post(`/proxy/api/v1${path}`)
      .set({ 'content-type': 'application/json', ...headers })
      .send(JSON.stringify(body));
  const hi = { model: 'local-chat', messages: [{ role: 'user', content: 'Why do sea levels rise? key test' }] };

  it("the key: as Bearer or api-key, options after a slash in either; 401 in OpenAI's shape otherwise", async () => {
    expect((await post('/chat/completions', hi, { 'api-key': p.key })).status).toBe(200);
    expect((await post('/chat/completions', hi, { authorization: `Bearer ${p.key}` })).headers['x-cache']).toBe('HIT');
    expect((await post('/chat/completions', hi, { authorization: `Bearer ${p.key}/{'is_cache': 0}` })).headers['x-cache']).toBe('BYPASS');
    expect((await post('/chat/completions', hi, { 'api-key': `${p.key}/{"is_cache": 0}` })).headers['x-cache']).toBe('BYPASS');
    const badOption = await post('/chat/completions', hi, { authorization: `Bearer ${p.key}/{"use_guard": 9}` });
    expect(badOption).toMatchObject({ status: 400, body: { error: { code: 'invalid_key_option' } } });
    expect((await post('/chat/completions', hi, {})).body).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'missing_api_key' },
    });
    const jwt = await post('/chat/completions', hi, { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
    expect(jwt).toMatchObject({ status: 401, body: { error: { type: 'authentication_error', code: 'invalid_api_key' } } });
    await expect(new OpenAI({ baseURL: base, apiKey: 'lmk-not-a-key', maxRetries: 0 }).models.list()).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    expect((await request(p.app).get('/proxy/api/v1/usage').set('authorization', `Bearer ${p.key}`)).status).toBe(200);
  });

  it("errors in OpenAI's shape: an unknown model, no model, a bad tool, a model of another kind", async () => {
    const unknown = await post('/chat/completions', { ...hi, model: 'gpt-nothing' }, { authorization: `Bearer ${p.key}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      error: { message: 'The model "gpt-nothing" does not exist', type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
    });
    expect(await post('/embeddings', { input: 'x' }, { authorization: `Bearer ${p.key}` })).toMatchObject({
      status: 400,
      body: { error: { param: 'model', code: 'missing_model' } },
    });
    const badName = client.chat.completions.create({
      ...hi,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get weather' } }],
    });
    await expect(badName).rejects.toBeInstanceOf(BadRequestError);
    await expect(badName).rejects.toMatchObject({ status: 400, param: 'tools.0.function.name' });
    const schemaText = await post(
      '/chat/completions',
      { ...hi, tools: [{ type: 'function', function: { name: 'f', parameters: '{"type":"object"}' } }] },
      { authorization: `Bearer ${p.key}` },
    );
    expect(schemaText).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'tools.0.function.parameters' } },
    });
    const tooMany = Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } }));
    expect(await post('/chat/completions', { ...hi, tools: tooMany }, { authorization: `Bearer ${p.key}` })).toMatchObject({
      status: 400,
      body: { error: { param: 'tools' } },
    });
    expect(await post('/chat/completions', { ...hi, functions: [{ name: 'f' }] }, { authorization: `Bearer ${p.key}` })).toMatchObject({
      status: 400,
      body: { error: { param: 'functions' } },
    });
    expect(await post('/chat/completions', { ...hi, model: 'local-embed' }, { authorization: `Bearer ${p.key}` })).toMatchObject({
      status: 400,
      body: { error: { code: 'unsupported_model' } },
    });
  });
});
