import OpenAI, { AzureOpenAI } from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import request from 'supertest';
import { sseEventsOf } from '../../shared/sse';
import { ANSWER, modelsInProcess, QUESTION, SOURCES, type ModelsInProcess } from './fixture';

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The current weather in a city',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const ASK_WEATHER = 'What is the weather in Paris?';

/**
 * OpenAI's Responses API at the OpenAI-compatible base (`/proxy/api/v1`) and on Azure's v1 layout,
 * driven with the official openai SDK over a listening socket (the models service in process, its
 * built-in local-chat, which calls a tool whose name matches the question): answers, instructions,
 * JSON schema output, the stream's events in OpenAI's order, a tool round trip (plain and streamed),
 * Azure's model list, and errors in OpenAI's shape.
 */
describe('model gateway: the Responses API through the openai SDK', () => {
  let p: ModelsInProcess;
  let url: string;
  let client: OpenAI;
  beforeAll(async () => {
    p = await modelsInProcess();
    url = await p.listen();
    client = new OpenAI({ baseURL: `${url}/proxy/api/v1`, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(() => p?.close());

  const events = async (body: Parameters<OpenAI['responses']['create']>[0]) => {
    const seen: ResponseStreamEvent[] = [];
    for await (const e of await client.responses.create({ ...body, stream: true })) seen.push(e);
    return seen;
  };

  it("answers from the instructions' context: a completed response with its message, output_text and usage", async () => {
    const r = await client.responses.create({ model: 'local-chat', instructions: SOURCES, input: QUESTION });
    expect(r).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'local-chat',
      instructions: SOURCES,
      error: null,
      incomplete_details: null,
    });
    expect(r.id).toMatch(/^resp_/);
    expect(r.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: r.output_text }],
      },
    ]);
    expect(r.output_text).toContain(ANSWER);
    expect(r.output_text).not.toContain('Sourdough');
    expect(r.usage!.input_tokens).toBeGreaterThan(10);
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + r.usage!.output_tokens);
    const items = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'developer', content: SOURCES },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: QUESTION }] },
      ],
    });
    expect(items.output_text).toBe(r.output_text);
  });

  it('answers JSON of the asked schema (text.format json_schema), and stops at max_output_tokens as incomplete', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const r = await client.responses.create({
      model: 'local-chat',
      instructions: SOURCES,
      input: QUESTION,
      text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } },
    });
    expect(JSON.parse(r.output_text).answer).toContain(ANSWER);
    expect(r.text).toEqual({ format: { type: 'json_schema', name: 'answer', schema, strict: true } });
    const cut = await client.responses.create({
      model: 'local-chat',
      instructions: SOURCES,
      input: 'glaciers sea levels ice',
      max_output_tokens: 3,
    });
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 3 });
    expect(cut.usage!.output_tokens).toBeLessThanOrEqual(3);
  });

  it("streams the events as OpenAI sends them, numbered, the text's deltas adding up to the whole answer", async () => {
    const whole = await client.responses.create({ model: 'local-chat', instructions: SOURCES, input: QUESTION });
    const seen = await events({ model: 'local-chat', instructions: SOURCES, input: QUESTION });
    const types = seen.map((e) => e.type);
    const deltas = seen.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...deltas.map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(seen.map((e) => e.sequence_number)).toEqual(seen.map((_e, i) => i));
    expect(deltas.map((d) => d.delta).join('')).toBe(whole.output_text);
    const created = seen[0] as Extract<ResponseStreamEvent, { type: 'response.created' }>;
    const completed = seen.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(created.response).toMatchObject({ status: 'in_progress', output: [] });
    expect(completed.response).toMatchObject({ id: created.response.id, status: 'completed', usage: whole.usage });
    expect(completed.response.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: whole.output_text }] });
    const itemId = (seen[2] as Extract<ResponseStreamEvent, { type: 'response.output_item.added' }>).item.id;
    expect(deltas.every((d) => d.item_id === itemId && d.output_index === 0 && d.content_index === 0)).toBe(true);
  });

  it('round-trips a function tool: a function_call, its output sent back, then the answer', async () => {
    const first = await client.responses.create({ model: 'local-chat', input: ASK_WEATHER, tools: [WEATHER] });
    expect(first.status).toBe('completed');
    expect(first.output).toEqual([
      {
        id: expect.stringMatching(/^fc_/),
        type: 'function_call',
        status: 'completed',
        name: 'get_weather',
        call_id: expect.stringMatching(/^call_/),
        arguments: JSON.stringify({ city: 'Paris' }),
      },
    ]);
    expect(first.output_text).toBe('');
    expect(first.tools).toEqual([{ ...WEATHER }]);
    const call = first.output[0] as Extract<ResponseInputItem, { type: 'function_call' }>;
    const input: ResponseInputItem[] = [
      { role: 'user', content: ASK_WEATHER },
      ...(first.output as ResponseInputItem[]),
      { type: 'function_call_output', call_id: call.call_id, output: '{"temperature_c":21,"sky":"clear"}' },
    ];
    const second = await client.responses.create({ model: 'local-chat', input, tools: [WEATHER] });
    expect(second.output_text).toBe('get_weather returned: {"temperature_c":21,"sky":"clear"}');
    const none = await client.responses.create({ model: 'local-chat', input: ASK_WEATHER, tools: [WEATHER], tool_choice: 'none' });
    expect(none.output[0].type).toBe('message');
  });

  it("streams a function call: the item added, its arguments' delta and done, the item done, then response.completed", async () => {
    const seen = await events({ model: 'local-chat', input: ASK_WEATHER, tools: [WEATHER] });
    expect(seen.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const args = JSON.stringify({ city: 'Paris' });
    const added = seen[2] as Extract<ResponseStreamEvent, { type: 'response.output_item.added' }>;
    expect(added).toMatchObject({
      output_index: 0,
      item: { type: 'function_call', status: 'in_progress', name: 'get_weather', arguments: '' },
    });
    expect(seen[3]).toMatchObject({ item_id: added.item.id, output_index: 0, delta: args });
    expect(seen[4]).toMatchObject({ item_id: added.item.id, name: 'get_weather', arguments: args });
    expect(seen[5]).toMatchObject({ item: { id: added.item.id, status: 'completed', arguments: args } });
    const completed = seen[6] as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(completed.response.output).toEqual([(seen[5] as Extract<ResponseStreamEvent, { type: 'response.output_item.done' }>).item]);
  });

  it("serves Azure's v1 layout: the model list and the same Responses API, key in api-key, api-version optional", async () => {
    const azure = new AzureOpenAI({ baseURL: `${url}/proxy/api/v1/azure/openai/v1`, apiKey: p.key, apiVersion: 'preview', maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of azure.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['local-chat', 'local-embed']));
    expect(await azure.models.retrieve('local-chat')).toMatchObject({
      id: 'local-chat',
      object: 'model',
      capabilities: { chat_completion: true },
    });
    expect(await azure.models.retrieve('gpt-nothing').catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const r = await azure.responses.create({ model: 'local-chat', instructions: SOURCES, input: QUESTION });
    expect(r.output_text).toContain(ANSWER);
    const legacy = new AzureOpenAI({
      endpoint: `${url}/proxy/api/v1/azure`,
      apiKey: p.key,
      apiVersion: '2025-04-01-preview',
      maxRetries: 0,
    });
    const first = await legacy.models.list();
    expect(first.data.find((m) => m.id === 'local-chat')).toMatchObject({
      object: 'model',
      status: 'succeeded',
      capabilities: { chat_completion: true, inference: true },
    });
    const raw = await request(p.app)
      .post('/proxy/api/v1/azure/openai/responses')
      .set('api-key', p.key)
      .send({ model: 'local-chat', input: 'hi' });
    expect(raw.status).toBe(200);
  });

  it("answers errors in OpenAI's shape: no key 401, unknown model 404, unsupported tools 400, unknown stored responses and items", async () => {
    const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${p.key}` }) =>
      request(p.app)
        .post('/proxy/api/v1/responses')
        .set(headers)
        .send(body as object);
    const noKey = await post({ model: 'local-chat', input: 'hi' }, {});
    expect(noKey).toMatchObject({ status: 401, body: { error: { type: 'authentication_error', code: 'missing_api_key' } } });
    const badKey = await client
      .withOptions({ apiKey: 'lmk-nope' })
      .responses.create({ model: 'local-chat', input: 'hi' })
      .catch((e) => e);
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);
    const unknown = await client.responses.create({ model: 'gpt-nothing', input: 'hi' }).catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.error).toMatchObject({ code: 'model_not_found', type: 'invalid_request_error' });
    const web = await post({ model: 'local-chat', input: 'hi', tools: [{ type: 'web_search' }] });
    expect(web).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', param: 'tools.0.type' } } });
    expect(web.body.error.message).toContain("The tool type 'web_search' is not supported");
    const previous = await post({ model: 'local-chat', input: 'hi', previous_response_id: 'resp_123' });
    expect(previous).toMatchObject({ status: 400, body: { error: { param: 'previous_response_id' } } });
    expect(previous.body.error).toEqual({
      message: "Previous response with id 'resp_123' not found.",
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
    const reference = await post({ model: 'local-chat', input: [{ type: 'item_reference', id: 'msg_1' }] });
    expect(reference).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', param: 'input', code: 'item_not_found' } },
    });
    expect(reference.body.error.message).toContain("Item with id 'msg_1' not found.");
    expect(await post({ input: 'hi' })).toMatchObject({ status: 400, body: { error: { param: 'model' } } });
    expect(await post({ model: 'local-chat' })).toMatchObject({ status: 400, body: { error: { param: 'input' } } });
    expect(await post({ model: 'local-chat', input: [{ role: 'robot', content: 'x' }] })).toMatchObject({
      status: 400,
      body: { error: { param: 'input.0.role' } },
    });
    expect(await post({ model: 'local-embed', input: 'hi' })).toMatchObject({ status: 400 });
    const image = await post({
      model: 'local-chat',
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }],
    });
    expect(image).toMatchObject({ status: 400, body: { error: { code: 'invalid_image_url' } } });
  });

  it('writes each event as `event: <type>` then its data, and no [DONE]', async () => {
    const res = await request(p.app)
      .post('/proxy/api/v1/responses')
      .set('authorization', `Bearer ${p.key}`)
      .send({ model: 'local-chat', input: 'hi', stream: true });
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const all = sseEventsOf(res.text);
    expect(all.every((e) => e.event === JSON.parse(e.data).type)).toBe(true);
    expect(all.at(-1)!.event).toBe('response.completed');
  });

  it("is in the gateway's OpenAPI document: the request, the response and its events, Azure's model list", async () => {
    const doc = (await request(p.app).get('/proxy/api/v1/openapi.json').expect(200)).body;
    const post = doc.paths['/proxy/api/v1/responses'].post;
    expect(Object.keys(post.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(post.requestBody.content['application/json'].schema).toBeDefined();
    expect(doc.paths['/proxy/api/v1/azure/openai/v1/responses'].post).toBeDefined();
    expect(doc.paths['/proxy/api/v1/azure/openai/v1/models/{model}'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'model', in: 'path' })]),
    );
    expect(doc.components.schemas).toEqual(
      expect.objectContaining({ ResponseObject: expect.any(Object), AzureModelList: expect.any(Object) }),
    );
  });
});
