import OpenAI from 'openai';
import request from 'supertest';
import { NO_ANSWER } from '../../../core/models/vendors/local';
import { ANSWER, modelsInProcess, QUESTION, SOURCES, type ModelsInProcess } from './fixture';

const SOURDOUGH = 'What does sourdough bread need?';
const GLACIERS = 'Why do glaciers retreat?';
const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The current weather in a city',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

/**
 * Stored responses through the openai SDK (the models service in process on a listening socket,
 * its built-in local-chat, which answers from the sentences of the whole conversation): chains of
 * `previous_response_id`, `responses.retrieve`, `responses.delete`, `inputItems.list`, at OpenAI's
 * base and on Azure's v1 layout; another tenant's key sees none of them; `store: false` keeps nothing.
 */
describe('model gateway: stored responses through the openai SDK', () => {
  let p: ModelsInProcess;
  let url: string;
  let client: OpenAI;
  let stranger: OpenAI;
  beforeAll(async () => {
    p = await modelsInProcess();
    url = await p.listen();
    client = new OpenAI({ baseURL: `${url}/proxy/api/v1`, apiKey: p.key, maxRetries: 0 });
    stranger = new OpenAI({
      baseURL: `${url}/proxy/api/v1`,
      apiKey: await p.newKey('stranger', '--tenant', 'another-tenant'),
      maxRetries: 0,
    });
  });
  afterAll(() => p?.close());

  it('continues a conversation over three turns with previous_response_id, streamed or not', async () => {
    const first = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'developer', content: SOURCES },
        { role: 'user', content: QUESTION },
      ],
    });
    expect(first.output_text).toContain(ANSWER);
    expect(first).toMatchObject({ store: true });
    const second = await client.responses.create({ model: 'local-chat', previous_response_id: first.id, input: SOURDOUGH });
    expect(second.output_text).toContain('Sourdough bread needs a starter.');
    expect(second.previous_response_id).toBe(first.id);
    let third: OpenAI.Responses.Response | undefined;
    for await (const e of await client.responses.create({
      model: 'local-chat',
      previous_response_id: second.id,
      input: GLACIERS,
      stream: true,
    })) {
      if (e.type === 'response.completed') third = e.response;
    }
    expect(
      third!.output
        .flatMap((o) => (o.type === 'message' ? o.content : []))
        .map((c) => (c.type === 'output_text' ? c.text : ''))
        .join(''),
    ).toContain('Glaciers retreat as the climate warms.');
    // The streamed response is kept before its response.completed event.
    const items = [];
    for await (const item of client.responses.inputItems.list(third!.id, { order: 'asc', limit: 2 })) items.push(item);
    expect(items.map((i) => i.type)).toEqual(['message', 'message', 'message', 'message', 'message', 'message']);
    expect(items.map((i) => ('role' in i ? i.role : ''))).toEqual(['developer', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(items.every((i) => typeof i.id === 'string' && i.id.length > 3)).toBe(true);
    expect(items[2].id).toBe(first.output[0].id);
    const newest = await client.responses.inputItems.list(third!.id, { limit: 1 });
    expect(newest.data).toEqual([expect.objectContaining({ role: 'user', content: [{ type: 'input_text', text: GLACIERS }] })]);
    expect(newest.has_more).toBe(true);
  });

  it('does not carry the instructions over to the next response', async () => {
    const first = await client.responses.create({ model: 'local-chat', instructions: SOURCES, input: QUESTION });
    expect(first.output_text).toContain(ANSWER);
    const next = await client.responses.create({ model: 'local-chat', previous_response_id: first.id, input: SOURDOUGH });
    expect(next.instructions).toBeNull();
    expect(next.output_text).toBe(NO_ANSWER);
  });

  it('runs a tool round trip across two responses: the function call is stored, its output sent alone', async () => {
    const call = await client.responses.create({ model: 'local-chat', input: 'What is the weather in Paris?', tools: [WEATHER] });
    const fc = call.output.find((o) => o.type === 'function_call')!;
    expect(fc).toMatchObject({ type: 'function_call', name: 'get_weather' });
    if (fc.type !== 'function_call') throw new Error('no function call');
    const answer = await client.responses.create({
      model: 'local-chat',
      previous_response_id: call.id,
      tools: [WEATHER],
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: '{"city":"Paris","temperature_c":21}' }],
    });
    expect(answer.output_text).toContain('get_weather returned: {"city":"Paris","temperature_c":21}');
    // The same round trip naming the stored call by item_reference instead.
    const byRef = await client.responses.create({
      model: 'local-chat',
      tools: [WEATHER],
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { type: 'item_reference', id: fc.id! },
        { type: 'function_call_output', call_id: fc.call_id, output: '{"sky":"clear"}' },
      ],
    });
    expect(byRef.output_text).toContain('get_weather returned: {"sky":"clear"}');
  });

  it("retrieves and deletes a response, at OpenAI's base and on Azure's v1 layout", async () => {
    const made = await client.responses.create({ model: 'local-chat', instructions: SOURCES, input: QUESTION, metadata: { chat: '42' } });
    const got = await client.responses.retrieve(made.id);
    expect(got).toEqual({ ...made, output_text: made.output_text });
    const azure = await request(url)
      .get(`/proxy/api/v1/azure/openai/v1/responses/${made.id}?api-version=preview`)
      .set('api-key', p.key)
      .expect(200);
    expect(azure.body.id).toBe(made.id);
    expect(
      (await request(url).get(`/proxy/api/v1/azure/openai/responses/${made.id}/input_items`).set('api-key', p.key).expect(200)).body,
    ).toMatchObject({ object: 'list', has_more: false, data: [{ type: 'message', role: 'user' }] });
    await client.responses.delete(made.id);
    const gone = await client.responses.retrieve(made.id).catch((e) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.error).toMatchObject({ message: `Response with id '${made.id}' not found.`, type: 'invalid_request_error' });
    expect(await client.responses.delete(made.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await client.responses.create({ model: 'local-chat', previous_response_id: made.id, input: 'hi' }).catch((e) => e);
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chained.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
    const removed = await request(url)
      .delete(`/proxy/api/v1/azure/openai/v1/responses/${(await client.responses.create({ model: 'local-chat', input: 'x' })).id}`)
      .set('api-key', p.key);
    expect(removed.body).toMatchObject({ object: 'response', deleted: true });
  });

  it('keeps another tenant out: it can neither retrieve, list, delete, chain nor reference', async () => {
    const mine = await client.responses.create({
      model: 'local-chat',
      input: [
        { role: 'developer', content: SOURCES },
        { role: 'user', content: QUESTION },
      ],
    });
    expect(await stranger.responses.retrieve(mine.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await stranger.responses.inputItems.list(mine.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await stranger.responses.delete(mine.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await stranger.responses
      .create({ model: 'local-chat', previous_response_id: mine.id, input: SOURDOUGH })
      .catch((e) => e);
    expect(chained.error).toMatchObject({ code: 'previous_response_not_found' });
    const referenced = await stranger.responses
      .create({ model: 'local-chat', input: [{ type: 'item_reference', id: mine.output[0].id! }] })
      .catch((e) => e);
    expect(referenced).toBeInstanceOf(OpenAI.NotFoundError);
    expect(referenced.error).toMatchObject({ param: 'input', code: 'item_not_found' });
    // Still there for its own tenant.
    expect((await client.responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('keeps nothing of a response made with store: false', async () => {
    const r = await client.responses.create({ model: 'local-chat', input: QUESTION, store: false });
    expect(r).toMatchObject({ store: false });
    expect(await client.responses.retrieve(r.id).catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await client.responses.create({ model: 'local-chat', previous_response_id: r.id, input: 'more' }).catch((e) => e);
    expect(chained.error).toMatchObject({ code: 'previous_response_not_found' });
    const ref = await client.responses
      .create({ model: 'local-chat', input: [{ type: 'item_reference', id: r.output[0].id! }] })
      .catch((e) => e);
    expect(ref).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('refuses a stream of a stored response, and bad paging', async () => {
    const r = await client.responses.create({ model: 'local-chat', input: 'x' });
    const auth = { authorization: `Bearer ${p.key}` };
    expect((await request(url).get(`/proxy/api/v1/responses/${r.id}?stream=true`).set(auth)).body).toMatchObject({
      error: { param: 'stream' },
    });
    expect((await request(url).get(`/proxy/api/v1/responses/${r.id}/input_items?limit=1000`).set(auth)).status).toBeGreaterThanOrEqual(400);
  });
});
