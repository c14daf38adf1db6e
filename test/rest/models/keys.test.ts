import request from 'supertest';
import { modelsInProcess, type ModelsInProcess } from './fixture';

/**
 * The catalog route and the LM key it takes, in process: the key the first start made, 401s, key
 * options. `platform key` itself (the built command, run beside a running server) is
 * test/e2e/models/keys.test.ts's.
 */
describe('model gateway: keys and catalog', () => {
  let p: ModelsInProcess;
  beforeAll(async () => {
    p = await modelsInProcess();
  });
  afterAll(() => p?.close());

  const models = async (apiKey?: string) => {
    const res = await request(p.app)
      .get('/proxy/api/v1/models')
      .set(apiKey === undefined ? {} : { 'api-key': apiKey });
    return { status: res.status, body: res.body };
  };

  it('the first start made a key for the demo tenant; it lists the catalog', async () => {
    const key = p.key;
    expect(key).toMatch(/^lmk-[\w-]{43}$/);
    const r = await models(key);
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.data.map((m: { id: string }) => m.id)).toEqual(['local-chat', 'local-embed', 'local-image']);
    expect(r.body.data[0]).toMatchObject({
      object: 'model',
      owned_by: 'local',
      status: 'Active',
      context_length: 8192,
      input_kinds: ['text'],
    });
  });

  it('no key, unknown key: 401; a bad option: 400 naming it; options are accepted after a slash', async () => {
    expect(await models()).toMatchObject({ status: 401, body: { error: { code: 'missing_api_key' } } });
    expect((await models('lmk-not-a-real-key')).status).toBe(401);
    expect((await models('lmk-not-a-real-key/{"use_guard": 9}')).status).toBe(401);
    const key = p.key;
    expect(await models(`${key}/{"use_guard": 9}`)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_key_option', message: "Invalid api-key option 'use_guard': must be 0, 1 or 2" } },
    });
    expect((await models(`${key}/{'is_cache': 0, 'Bot_Id': 'b-1', 'is_system': False}`)).status).toBe(200);
  });
});
