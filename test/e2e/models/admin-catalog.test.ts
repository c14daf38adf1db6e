import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { startInTemp, type Started } from '../shared/server';
import { ADMIN, bearerOf, call, chat, listed, type Answer } from './admin-catalog-fixture';

/** A catalog file beside the built-ins: a chat model of the offline provider, and a retired one. */
const CATALOG = {
  models: [
    { id: 'file-chat', group: 'A', upstream: { provider: 'local' }, contextLength: 4096 },
    { id: 'old-chat', group: 'A', upstream: { provider: 'local' }, contextLength: 4096, status: 'Retired 2025-06' },
  ],
};
/** An alias of the offline chat model, as an administrator adds it. */
const TEAM_CHAT = { group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192, maxOutputTokens: 512 };

/**
 * The model catalog in the admin API, over real HTTP and GraphQL on a platform with a catalog file:
 * a model added is served through the gateway at once; replaced; deactivated (refused as a
 * deactivated model is) and reactivated; versions and If-Match; who may do what; bad input is
 * 400/422, never 500; the file's models keep working and can be changed too.
 */
describe('the model catalog in the admin API', () => {
  let p: Started;
  let dir: string;
  let key: string;
  let platform: string;
  let realmAdmin: string;
  let plain: string;
  const admin = (method: string, path: string, opts: { auth?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    call(p.url, method, ADMIN + path, { auth: platform, ...opts });
  const gql = async (query: string, variables: Record<string, unknown>, auth = platform) =>
    (await call(p.url, 'POST', '/graphql', { auth, body: { query, variables } })).body as { data?: any; errors?: any[] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'admin-catalog-'));
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
    p = await startInTemp('all', { MODELS_CATALOG_FILE: join(dir, 'catalog.json') });
    const realm = p.bootstrap!.values.realm;
    key = p.bootstrap!.values.api_key;
    platform = await bearerOf(p, realm, 'catalog-platform-admin', [PLATFORM_ADMIN_ROLE]);
    realmAdmin = await bearerOf(p, realm, 'catalog-realm-admin', [REALM_ADMIN_ROLE]);
    plain = await bearerOf(p, realm, 'catalog-plain', []);
  }, 60_000);
  afterAll(async () => {
    await p?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the file's and built-in models with their state; the catalog file still works", async () => {
    const r = await admin('GET', '/models');
    expect(r.status).toBe(200);
    expect(r.body.items.map((m: any) => [m.id, m.source, m.active, m.version])).toEqual([
      ['file-chat', 'file', true, 1],
      ['local-chat', 'file', true, 1],
      ['local-embed', 'file', true, 1],
      ['local-image', 'file', true, 1],
      ['old-chat', 'file', false, 1],
    ]);
    expect(r.body.total).toBe(5);
    expect((await admin('GET', '/models?active=false')).body.items.map((m: any) => m.id)).toEqual(['old-chat']);
    expect((await chat(p.url, key, 'file-chat')).status).toBe(200);
    const one = await admin('GET', '/models/file-chat');
    expect(one.headers.get('etag')).toBe('"1"');
    expect(one.body).toMatchObject({ id: 'file-chat', context_length: 4096, upstream: { provider: 'local', base_url: null } });
  });

  it('adds a model that the gateway lists and serves at once; replaces it under If-Match; a stale If-Match is 412', async () => {
    expect((await chat(p.url, key, 'team-chat')).status).toBe(404);
    const added = await admin('PUT', '/models/team-chat', { body: TEAM_CHAT });
    expect(added.status).toBe(200);
    expect(added.headers.get('etag')).toBe('"1"');
    expect(added.body).toMatchObject({ id: 'team-chat', source: 'admin', active: true, version: 1, max_output_tokens: 512 });
    expect(await listed(p.url, key)).toContain('team-chat');
    const answer = await chat(p.url, key, 'team-chat');
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].message.content).toMatch(/ice melts/i);

    const replaced = await admin('PUT', '/models/team-chat', {
      body: { ...TEAM_CHAT, contextLength: 2048 },
      headers: { 'if-match': '"1"' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ version: 2, context_length: 2048 });
    const stale = await admin('PUT', '/models/team-chat', { body: TEAM_CHAT, headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect((await admin('DELETE', '/models/team-chat', { headers: { 'if-match': '"1"' } })).status).toBe(412);
    expect((await admin('GET', '/models/team-chat')).body.context_length).toBe(2048);
  });

  it('deactivates a model of either source: refused as a deactivated model is, until a PUT reactivates it', async () => {
    await admin('PUT', '/models/gone-chat', { body: TEAM_CHAT });
    // How the gateway refuses a model the catalog file retired, today.
    const retired = await chat(p.url, key, 'old-chat');
    expect(retired.status).toBe(404);
    expect(retired.text).toMatch(/model_deactivated/);

    const off = await admin('DELETE', '/models/gone-chat');
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ active: false, status: 'Deactivated', version: 2 });
    const refused = await chat(p.url, key, 'gone-chat');
    expect(refused.status).toBe(404);
    expect(refused.text).toMatch(/model_deactivated/);
    expect(await listed(p.url, key)).toContain('gone-chat');

    const fileOff = await admin('DELETE', '/models/file-chat', { headers: { 'if-match': '"1"' } });
    expect(fileOff.body).toMatchObject({ source: 'file', active: false, version: 2 });
    expect((await chat(p.url, key, 'file-chat')).text).toMatch(/model_deactivated/);

    const back = await admin('PUT', '/models/gone-chat', { body: TEAM_CHAT, headers: { 'if-match': '"2"' } });
    expect(back.body).toMatchObject({ active: true, version: 3 });
    expect((await chat(p.url, key, 'gone-chat')).status).toBe(200);
    expect((await admin('PUT', '/models/file-chat', { body: CATALOG.models[0] })).body).toMatchObject({
      active: true,
      source: 'admin',
      version: 3,
    });
    expect((await chat(p.url, key, 'file-chat')).status).toBe(200);
  });

  it('lets a realm administrator read but not change; a plain caller nothing; no token 401', async () => {
    expect((await admin('GET', '/models', { auth: realmAdmin })).status).toBe(200);
    expect((await admin('GET', '/models/local-chat', { auth: realmAdmin })).status).toBe(200);
    expect((await admin('PUT', '/models/rogue', { auth: realmAdmin, body: TEAM_CHAT })).status).toBe(403);
    expect((await admin('DELETE', '/models/local-chat', { auth: realmAdmin })).status).toBe(403);
    expect((await admin('GET', '/models', { auth: plain })).status).toBe(403);
    expect((await admin('PUT', '/models/rogue', { auth: plain, body: TEAM_CHAT })).status).toBe(403);
    expect((await call(p.url, 'GET', `${ADMIN}/models`)).status).toBe(401);
    expect((await admin('GET', '/models/rogue')).status).toBe(404);
    expect((await chat(p.url, key, 'local-chat')).status).toBe(200);
  });

  it('answers bad input with 400 or 422 naming the problem, never 500', async () => {
    const put = (body: unknown, path = '/models/bad-model', headers: Record<string, string> = {}) => admin('PUT', path, { body, headers });
    const cases: [Answer, number, RegExp][] = [
      [await put({ ...TEAM_CHAT, contextLength: -5 }), 400, /contextLength/],
      [await put({ ...TEAM_CHAT, upstream: { provider: 'elsewhere' } }), 400, /upstream\.provider/],
      [await put({ ...TEAM_CHAT, upstream: { provider: 'openai-compatible', baseUrl: 'not a url' } }), 400, /baseUrl/],
      [await put({ ...TEAM_CHAT, id: 'other-id' }), 400, /id/],
      [
        await put({
          ...TEAM_CHAT,
          upstream: { provider: 'openai-compatible', baseUrl: 'https://x.example/v1', credentialEnv: 'DATABASE_URL' },
        }),
        400,
        /credentialEnv/,
      ],
      [
        await put({
          ...TEAM_CHAT,
          deployments: [
            { id: 'ok', upstream: { provider: 'local' } },
            { id: 'leak', upstream: { provider: 'openai-compatible', baseUrl: 'https://x.example/v1', credentialEnv: 'DATABASE_URL' } },
          ],
        }),
        400,
        /deployments\.leak\.upstream\.credentialEnv/,
      ],
      [await put({ group: 'A', contextLength: 4096 }), 400, /upstream/],
      [await put([TEAM_CHAT]), 422, /body/],
      [await put('"just text"'), 422, /body/],
      [await put('{"group": '), 400, /./],
      [await put(TEAM_CHAT, '/models/bad%20model'), 400, /id/],
      [await put(TEAM_CHAT, `/models/${'x'.repeat(300)}`), 422, /id/],
      [await put(TEAM_CHAT, '/models/bad-model', { 'if-match': 'yesterday' }), 400, /If-Match/],
      [await admin('GET', '/models?limit=100000'), 422, /limit/],
      [await admin('GET', '/models?sort=password'), 400, /sort/],
      [await admin('GET', '/models?cursor=forged'), 400, /cursor/],
      [await admin('GET', '/models?active=maybe'), 422, /active/],
    ];
    for (const [r, status, detail] of cases) {
      expect([r.status, r.text]).toEqual([status, expect.stringMatching(detail)]);
    }
    expect((await admin('GET', '/models/bad-model')).status).toBe(404);
  });

  it('records every change and refusal in the audit trail, queryable by type', async () => {
    await admin('PUT', '/models/audited-chat', { body: TEAM_CHAT });
    await admin('DELETE', '/models/audited-chat');
    await admin('PUT', '/models/audited-chat', { auth: realmAdmin, body: TEAM_CHAT });
    const r = await admin('GET', '/audit-events?type=model.&order=asc&limit=200');
    const mine = r.body.items.filter((e: any) => e.target?.id === 'audited-chat');
    expect(mine.map((e: any) => [e.type, e.outcome, e.actor.name, e.service])).toEqual([
      ['model.put', 'success', expect.stringContaining('catalog-platform-admin'), 'models'],
      ['model.deactivate', 'success', expect.stringContaining('catalog-platform-admin'), 'models'],
      ['model.put', 'failure', expect.stringContaining('catalog-realm-admin'), 'models'],
    ]);
  });

  it('offers the same through GraphQL: adminModels, adminModel, adminPutModel, adminDeactivateModel', async () => {
    const FIELDS = 'id group kind source active version status contextLength upstream { provider baseUrl } price { inputPerMillion }';
    const put = `mutation($id: ID!, $entry: JSONObject!, $version: Int) { adminPutModel(id: $id, entry: $entry, version: $version) { ${FIELDS} } }`;
    const added = await gql(put, { id: 'graph-chat', entry: TEAM_CHAT });
    expect(added.errors).toBeUndefined();
    expect(added.data.adminPutModel).toMatchObject({
      id: 'graph-chat',
      group: 'A',
      kind: 'chat',
      source: 'admin',
      version: 1,
      upstream: { provider: 'local', baseUrl: null },
    });
    expect((await chat(p.url, key, 'graph-chat')).status).toBe(200);

    const stale = await gql(`mutation { adminDeactivateModel(id: "graph-chat", version: 7) { id } }`, {});
    expect(stale.errors?.[0].extensions.code).toBe('PRECONDITION_FAILED');
    const off = await gql(`mutation { adminDeactivateModel(id: "graph-chat", version: 1) { active status version } }`, {});
    expect(off.data.adminDeactivateModel).toEqual({ active: false, status: 'Deactivated', version: 2 });
    expect((await chat(p.url, key, 'graph-chat')).status).toBe(404);

    const bad = await gql(put, { id: 'graph-chat', entry: { ...TEAM_CHAT, contextLength: 'long' } });
    expect(bad.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0].message).toMatch(/contextLength/);

    const list = await gql(`query { adminModels(source: "admin", first: 2, sort: "id") { items { id } nextCursor total } }`, {});
    expect(list.errors).toBeUndefined();
    expect(list.data.adminModels.items).toHaveLength(2);
    const rest = await gql(
      `query($after: String) { adminModels(source: "admin", first: 200, after: $after, sort: "id") { items { id } total } }`,
      {
        after: list.data.adminModels.nextCursor,
      },
    );
    expect(rest.data.adminModels.items.length + 2).toBe(list.data.adminModels.total);
    expect((await gql(`query { adminModel(id: "graph-chat") { version active } }`, {})).data.adminModel).toEqual({
      version: 2,
      active: false,
    });

    const refused = await gql(put, { id: 'graph-rogue', entry: TEAM_CHAT }, realmAdmin);
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await gql(`query { adminModels { total } }`, {}, realmAdmin)).data.adminModels.total).toBeGreaterThan(5);
    expect((await gql(`query { adminModels { total } }`, {}, plain)).errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
