import { platformCli, startInTemp, type Started } from '../shared/server';

/** LM keys made by `platform key` (the built command, against the running server's data dir) and the catalog route. */
describe('model gateway: keys and catalog', () => {
  let p: Started;
  beforeAll(async () => {
    p = await startInTemp('all');
  }, 60_000);
  afterAll(() => p.stop());

  const models = async (apiKey?: string) => {
    const res = await fetch(`${p.url}/proxy/api/v1/models`, { headers: apiKey === undefined ? {} : { 'api-key': apiKey } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const cli = async (...args: string[]) => {
    const r = await platformCli(p.dataDir, args);
    return { ...r, json: r.status === 0 ? JSON.parse(r.stdout) : undefined };
  };

  it('the first start made a key for the demo tenant; it lists the catalog', async () => {
    const key = p.bootstrap!.values.api_key!;
    expect(key).toMatch(/^lmk-[\w-]{43}$/);
    const r = await models(key);
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.data.map((m: { id: string }) => m.id)).toEqual(['local-chat', 'local-embed', 'local-image']);
    expect(r.body.data[0]).toMatchObject({ object: 'model', owned_by: 'local', status: 'Active', context_length: 8192, input_kinds: ['text'] });
  });

  it('create (shown once, tenant and models), list (no key text), revoke (401 at once)', async () => {
    const made = await cli('key', 'create', '--name', 'bot', '--tenant', 'acme', '--models', 'local-chat', '--rpm', '60');
    expect(made.json).toMatchObject({ name: 'bot', tenant_id: 'acme', models: ['local-chat'], requests_per_minute: 60, revoked_at: null });
    const key = made.json.api_key as string;
    expect((await models(key)).body.data.map((m: { id: string }) => m.id)).toEqual(['local-chat']);
    const listed = await cli('key', 'list', '--tenant', 'acme');
    expect(listed.json).toHaveLength(1);
    expect(listed.stdout).not.toContain(key);
    expect(listed.json[0].prefix).toBe(key.slice(0, 10));
    const revoked = await cli('key', 'revoke', made.json.id);
    expect(revoked.json.revoked_at).toEqual(expect.any(String));
    expect(await models(key)).toEqual({ status: 401, body: { error: { code: 'invalid_api_key', message: 'Access denied: the api-key is not valid' } } });
  });

  it('no key, unknown key: 401; a bad option: 400 naming it; options are accepted after a slash', async () => {
    expect(await models()).toMatchObject({ status: 401, body: { error: { code: 'missing_api_key' } } });
    expect((await models('lmk-not-a-real-key')).status).toBe(401);
    expect((await models('lmk-not-a-real-key/{"use_guard": 9}')).status).toBe(401);
    const key = p.bootstrap!.values.api_key!;
    expect(await models(`${key}/{"use_guard": 9}`)).toMatchObject({ status: 400, body: { error: { code: 'invalid_key_option', message: "Invalid api-key option 'use_guard': must be 0, 1 or 2" } } });
    expect((await models(`${key}/{'is_cache': 0, 'Bot_Id': 'b-1', 'is_system': False}`)).status).toBe(200);
  });

  it('the command refuses what it cannot do, saying why', async () => {
    expect((await cli('key', 'create')).stderr).toContain('--name is required');
    expect((await cli('key', 'create', '--name', 'x', '--models', 'gpt-nothing')).stderr).toContain('not in the catalog: gpt-nothing');
    expect((await cli('key', 'create', '--name', 'x', '--rpm', 'many')).stderr).toContain('--rpm takes a positive whole number');
    expect((await cli('key', 'revoke', 'no-such-key')).stderr).toContain('No key');
  });
});
