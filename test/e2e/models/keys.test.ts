import { platformCli, startInTemp, type Started } from '../shared/server';

/**
 * LM keys made by `platform key`: the built command, a process of its own writing to the data dir of
 * a running server, which must see its keys (and their revocation) at once. The catalog route and
 * the key's 401s and options are tested in process in test/rest/models/keys.test.ts.
 */
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
    expect(await models(key)).toEqual({
      status: 401,
      body: {
        error: { code: 'invalid_api_key', message: 'Access denied: the api-key is not valid', type: 'authentication_error', param: null },
      },
    });
  });

  it('the command refuses what it cannot do, saying why', async () => {
    // Four processes side by side, not one after another: each refuses before it writes anything.
    const [noName, unknownModel, badRpm, noSuchKey] = await Promise.all([
      cli('key', 'create'),
      cli('key', 'create', '--name', 'x', '--models', 'gpt-nothing'),
      cli('key', 'create', '--name', 'x', '--rpm', 'many'),
      cli('key', 'revoke', 'no-such-key'),
    ]);
    expect(noName.stderr).toContain('--name is required');
    expect(unknownModel.stderr).toContain('not in the catalog: gpt-nothing');
    expect(badRpm.stderr).toContain('--rpm takes a positive whole number');
    expect(noSuchKey.stderr).toContain('No key');
  });
});
