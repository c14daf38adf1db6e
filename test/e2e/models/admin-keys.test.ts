import type { TokenCore } from '../../../core/token';
import { REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { eventually } from '../../shared/wait';
import { startInTemp, type Started } from '../shared/server';

/**
 * Model keys and usage in the admin API, over HTTP and GraphQL (docs/admin.md): the first start's
 * platform administrator, a realm administrator of another realm (its tenant is its realm's id), and
 * the demo user (no admin role). The key's text is in the answer that made it and nowhere else.
 */
describe('admin API: model keys and usage', () => {
  let p: Started;
  let boot: Record<string, string>;
  let platform: string;
  let realmAdmin: string;
  let plain: string;
  let otherTenant: string;
  /** Every key text the tests made: none may appear in a list, a read or an audit event. */
  const texts: string[] = [];

  const login = async (realm: string, username: string, password: string) => {
    const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realm, username, password }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    p = await startInTemp('all');
    boot = p.bootstrap!.values;
    const token = p.instances.token as TokenCore;
    otherTenant = (await token.admin.createRealm({ name: 'other' })).id;
    await token.admin.createUser({ realm: otherTenant, username: 'ra', password: 'realm-admin-pw', roles: [REALM_ADMIN_ROLE] });
    [platform, realmAdmin, plain] = await Promise.all([
      login(boot.realm, boot.admin_username, boot.admin_password),
      login(otherTenant, 'ra', 'realm-admin-pw'),
      login(boot.realm, boot.username, boot.password),
    ]);
  }, 60_000);
  afterAll(() => p.stop());

  const api = async (token: string | null, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${p.url}/admin/api/v1${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const create = async (token: string, body: Record<string, unknown>) => {
    const r = await api(token, 'POST', '/keys', body);
    expect(r.status).toBe(201);
    texts.push(r.body.api_key);
    return r.body;
  };
  /** The gateway's answer to a key: its catalog listing. */
  const gateway = async (apiKey: string) => {
    const res = await fetch(`${p.url}/proxy/api/v1/models`, { headers: { 'api-key': apiKey } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const gql = async (token: string | null, query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as any;
  };
  const auditEvents = async (type: string) =>
    (await api(platform, 'GET', `/audit-events?type=${encodeURIComponent(type)}&limit=200`)).body.items as any[];

  it('creates a key shown once; lists and reads it without its text; the key works at the gateway', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const made = await create(platform, {
      name: 'bot',
      tenant_id: otherTenant,
      models: ['local-chat'],
      requests_per_minute: 60,
      token_budget: 100_000,
      expires_at: expires,
    });
    expect(made).toEqual({
      api_key: expect.stringMatching(/^lmk-/),
      id: expect.any(String),
      prefix: made.api_key.slice(0, 10),
      name: 'bot',
      tenant_id: otherTenant,
      models: ['local-chat'],
      requests_per_minute: 60,
      token_budget: 100_000,
      budget: null,
      expires_at: expires,
      created_at: expect.any(String),
      revoked_at: null,
    });
    expect((await gateway(made.api_key)).body.data.map((m: { id: string }) => m.id)).toEqual(['local-chat']);
    const { api_key: _text, ...view } = made;
    const listed = await api(platform, 'GET', `/keys?tenant=${otherTenant}&q=BO`);
    expect(listed.body).toEqual({ items: [view], next_cursor: null, total: 1 });
    const read = await api(platform, 'GET', `/keys/${made.id}`);
    expect(read.body).toEqual(view);
    for (const r of [listed, read]) expect(r.text).not.toContain(made.api_key);
    // The listing prefix names it as well as the id (`platform key revoke <prefix>`).
    expect((await api(platform, 'GET', `/keys/${made.prefix}`)).body.id).toBe(made.id);
  });

  it('refuses what is not a key for the catalog, a past expiry, an unknown field or a bad filter', async () => {
    const unknown = await api(platform, 'POST', '/keys', { name: 'x', tenant_id: otherTenant, models: ['local-chat', 'gpt-nothing'] });
    expect(unknown).toMatchObject({ status: 400, body: { detail: 'models: not in the catalog: gpt-nothing' } });
    const past = await api(platform, 'POST', '/keys', { name: 'x', tenant_id: otherTenant, expires_at: '2001-01-01T00:00:00Z' });
    expect(past).toMatchObject({ status: 400, body: { detail: 'expires_at: a time in the future' } });
    expect((await api(platform, 'POST', '/keys', { name: 'x', api_key: 'lmk-mine' })).status).toBe(422);
    expect((await api(platform, 'POST', '/keys', { name: 'x', requests_per_minute: 0 })).status).toBe(422);
    expect((await api(platform, 'GET', '/keys?revoked=maybe')).status).toBe(422);
    expect((await api(platform, 'GET', '/keys?limit=201')).status).toBe(422);
    expect((await api(platform, 'GET', '/keys?sort=hash')).status).toBe(400);
    expect((await api(platform, 'GET', '/keys/no-such-key')).status).toBe(404);
  });

  it("keeps a realm administrator to its own tenants' keys: another tenant's answer 404, as if absent", async () => {
    const demoKey = (await api(platform, 'GET', `/keys?tenant=${boot.tenant_id}`)).body.items[0];
    expect(demoKey.name).toBe('demo');
    const own = await create(realmAdmin, { name: 'mine' });
    expect(own.tenant_id).toBe(otherTenant);
    const listed = await api(realmAdmin, 'GET', '/keys?limit=200');
    expect(listed.body.items.map((k: any) => k.tenant_id)).toEqual(listed.body.items.map(() => otherTenant));
    expect(listed.body.items.map((k: any) => k.id)).toContain(own.id);
    expect((await api(realmAdmin, 'GET', `/keys?tenant=${boot.tenant_id}`)).body).toEqual({ items: [], next_cursor: null, total: 0 });
    for (const [method, path] of [
      ['GET', `/keys/${demoKey.id}`],
      ['GET', `/keys/${demoKey.prefix}`],
      ['DELETE', `/keys/${demoKey.id}`],
      ['POST', `/keys/${demoKey.id}/rotate`],
    ])
      expect(await api(realmAdmin, method, path)).toMatchObject({
        status: 404,
        body: { detail: `No key ${JSON.stringify(path.split('/')[2])}` },
      });
    expect((await api(realmAdmin, 'POST', '/keys', { name: 'x', tenant_id: boot.tenant_id })).status).toBe(404);
    // The demo key still works: nothing above touched it.
    expect((await gateway(boot.api_key)).status).toBe(200);
    const refused = (await auditEvents('key.rotate')).filter((e) => e.outcome === 'failure' && e.actor.name === 'ra');
    expect(refused).toEqual([
      expect.objectContaining({ target: { kind: 'key', id: demoKey.id }, reason: `No key ${JSON.stringify(demoKey.id)}` }),
    ]);
  });

  it('answers 403 to a user without an admin role, 401 without a token, on every route', async () => {
    for (const [method, path, body] of [
      ['GET', '/keys', undefined],
      ['POST', '/keys', { name: 'x' }],
      ['GET', '/keys/x', undefined],
      ['DELETE', '/keys/x', undefined],
      ['POST', '/keys/x/rotate', undefined],
      ['GET', '/usage', undefined],
    ] as const) {
      expect((await api(plain, method, path, body)).status).toBe(403);
      expect((await api(null, method, path, body)).status).toBe(401);
    }
  });

  it('refuses an expired key exactly as a revoked one (401, the same body), and records both refusals by prefix only', async () => {
    const revoked = await create(platform, { name: 'to-revoke', tenant_id: otherTenant });
    const gone = await api(platform, 'DELETE', `/keys/${revoked.id}`);
    expect(gone.body).toMatchObject({ id: revoked.id, revoked_at: expect.any(String) });
    const refusedRevoked = await gateway(revoked.api_key);
    expect(refusedRevoked.status).toBe(401);
    const short = await create(platform, { name: 'short', tenant_id: otherTenant, expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await gateway(short.api_key)).status).toBe(200);
    await eventually(async () => (await gateway(short.api_key)).status === 401);
    expect(await gateway(short.api_key)).toEqual(refusedRevoked);
    await eventually(async () => {
      const events = await auditEvents('key.refused');
      return [revoked, short].every((k) => events.some((e) => e.actor.name === k.prefix));
    });
    const events = await auditEvents('key.refused');
    const of = (k: any) => events.filter((e) => e.actor.name === k.prefix);
    expect(of(revoked)[0]).toMatchObject({
      outcome: 'failure',
      service: 'models',
      reason: 'revoked key',
      tenant: otherTenant,
      actor: { kind: 'key', id: revoked.id, name: revoked.prefix },
      address: expect.any(String),
    });
    // Polled until refused, it was refused many times: one event per address and prefix per 10 s.
    expect(of(short)).toEqual([expect.objectContaining({ reason: 'expired key', target: { kind: 'key', id: short.id } })]);
    // The rotated-away and expired keys cannot be rotated.
    expect((await api(platform, 'POST', `/keys/${short.id}/rotate`)).status).toBe(409);
    expect((await api(platform, 'POST', `/keys/${revoked.id}/rotate`)).status).toBe(409);
  });

  it('records a flood of unknown keys from one address as one event, never the text', async () => {
    const fake = `lmk-${'Z'.repeat(43)}`;
    const answers = await Promise.all(Array.from({ length: 30 }, () => gateway(fake)));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    await eventually(async () => (await auditEvents('key.refused')).some((e) => e.actor.name === fake.slice(0, 10)));
    const events = (await auditEvents('key.refused')).filter((e) => e.actor.name === fake.slice(0, 10));
    expect(events).toEqual([expect.objectContaining({ reason: 'unknown key', actor: { kind: 'key', name: fake.slice(0, 10) } })]);
    expect(JSON.stringify(events)).not.toContain(fake);
  });

  it('rotates: a new key with the same settings shown once, the old one refused at once; two rotations at once make one key', async () => {
    const old = await create(platform, { name: 'rot', tenant_id: otherTenant, models: ['local-chat'], requests_per_minute: 7 });
    const r = await api(platform, 'POST', `/keys/${old.id}/rotate`);
    expect(r.status).toBe(201);
    texts.push(r.body.api_key);
    expect(r.body).toMatchObject({ name: 'rot', tenant_id: otherTenant, models: ['local-chat'], requests_per_minute: 7, revoked_at: null });
    expect(r.body.id).not.toBe(old.id);
    expect((await gateway(old.api_key)).status).toBe(401);
    expect((await gateway(r.body.api_key)).status).toBe(200);
    expect((await api(platform, 'GET', `/keys/${old.id}`)).body.revoked_at).toEqual(expect.any(String));

    const twice = await Promise.all([1, 2].map(() => api(realmAdmin, 'POST', `/keys/${r.body.id}/rotate`)));
    expect(twice.map((x) => x.status).sort()).toEqual([201, 409]);
    texts.push(...twice.filter((x) => x.status === 201).map((x) => x.body.api_key));
    const live = (await api(platform, 'GET', `/keys?tenant=${otherTenant}&revoked=false&q=rot`)).body.items;
    expect(live).toHaveLength(1);
    const [rotate] = (await auditEvents('key.rotate')).filter((e) => e.target?.id === old.id);
    expect(rotate).toMatchObject({ outcome: 'success', tenant: otherTenant, details: { new_id: r.body.id, new_prefix: r.body.prefix } });
  });

  it("sums the demo key's calls per day, tenant, key and model; a realm administrator sees none of them", async () => {
    const chat = () =>
      fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': `${boot.api_key}/{"is_cache":0}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
      }).then((res) => res.status);
    expect(await Promise.all([chat(), chat(), chat()])).toEqual([200, 200, 200]);
    const demoKey = (await api(platform, 'GET', `/keys?tenant=${boot.tenant_id}&q=demo`)).body.items[0];
    const today = new Date().toISOString().slice(0, 10);
    let rows: any[] = [];
    await eventually(async () => {
      rows = (await api(platform, 'GET', `/usage?tenant=${boot.tenant_id}&key=${demoKey.id}&model=local-chat`)).body.items;
      return rows[0]?.requests >= 3;
    });
    expect(rows).toEqual([
      {
        day: today,
        tenant_id: boot.tenant_id,
        key_id: demoKey.id,
        model: 'local-chat',
        requests: expect.any(Number),
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        words_sent: expect.any(Number),
        words_received: expect.any(Number),
        cache_hits: 0,
        errors: 0,
        cost: 0,
      },
    ]);
    expect(rows[0].input_tokens).toBeGreaterThan(0);
    // Pages of one row continue where the last ended.
    const first = (await api(platform, 'GET', `/usage?from=${today}&to=${today}&limit=1`)).body;
    expect(first.items).toHaveLength(1);
    if (first.total > 1) expect(first.next_cursor).toEqual(expect.any(String));
    // A realm administrator: its tenants' rows only (here none), whatever it filters by.
    for (const q of ['', `?tenant=${boot.tenant_id}`, `?key=${demoKey.id}`])
      expect((await api(realmAdmin, 'GET', `/usage${q}`)).body.items.filter((r: any) => r.tenant_id !== otherTenant)).toEqual([]);
    expect((await api(realmAdmin, 'GET', `/usage?tenant=${boot.tenant_id}`)).body.total).toBe(0);
    expect((await api(platform, 'GET', '/usage?from=2026-02-30')).status).toBe(400);
    expect((await api(platform, 'GET', '/usage?from=2020-01-01&to=2026-01-01')).status).toBe(400);
    expect((await api(platform, 'GET', '/usage?from=yesterday')).status).toBe(422);
    expect((await api(platform, 'GET', '/usage?cursor=bm9wZQ')).status).toBe(400);
  });

  it('does the same through GraphQL, by role', async () => {
    const made = await gql(
      platform,
      `mutation($input: AdminModelKeyInput!) { adminCreateModelKey(input: $input) { apiKey id prefix name tenantId models requestsPerMinute tokenBudget expiresAt revokedAt } }`,
      { input: { name: 'graph', tenantId: otherTenant, models: ['local-chat'], tokenBudget: 5000, expiresAt: '2099-01-01T00:00:00Z' } },
    );
    expect(made.errors).toBeUndefined();
    const k = made.data.adminCreateModelKey;
    texts.push(k.apiKey);
    expect(k).toMatchObject({
      name: 'graph',
      tenantId: otherTenant,
      models: ['local-chat'],
      tokenBudget: 5000,
      expiresAt: '2099-01-01T00:00:00.000Z',
      revokedAt: null,
    });
    const listed = await gql(realmAdmin, `{ adminModelKeys(q: "graph", first: 10) { items { id prefix tenantId } nextCursor total } }`);
    expect(listed.data.adminModelKeys).toEqual({
      items: [{ id: k.id, prefix: k.prefix, tenantId: otherTenant }],
      nextCursor: null,
      total: 1,
    });
    const rotated = await gql(realmAdmin, `mutation($id: ID!) { adminRotateModelKey(id: $id) { apiKey id name } }`, { id: k.id });
    expect(rotated.data.adminRotateModelKey).toMatchObject({ name: 'graph', apiKey: expect.stringMatching(/^lmk-/) });
    texts.push(rotated.data.adminRotateModelKey.apiKey);
    const revoked = await gql(platform, `mutation($id: ID!) { adminRevokeModelKey(id: $id) { id revokedAt } }`, {
      id: rotated.data.adminRotateModelKey.id,
    });
    expect(revoked.data.adminRevokeModelKey.revokedAt).toEqual(expect.any(String));
    const usage = await gql(
      platform,
      `{ adminUsage(tenant: "${boot.tenant_id}", first: 5) { items { day tenantId keyId model requests inputTokens } total } }`,
    );
    expect(usage.errors).toBeUndefined();

    const demoKey = (await api(platform, 'GET', `/keys?tenant=${boot.tenant_id}&q=demo`)).body.items[0];
    const hidden = await gql(realmAdmin, `query($id: ID!) { adminModelKey(id: $id) { id } }`, { id: demoKey.id });
    expect(hidden.errors[0].extensions.code).toBe('NOT_FOUND');
    const foreign = await gql(realmAdmin, `mutation { adminCreateModelKey(input: { name: "x", tenantId: "${boot.tenant_id}" }) { id } }`);
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
    const unknown = await gql(
      platform,
      `mutation { adminCreateModelKey(input: { name: "x", tenantId: "t", models: ["gpt-nothing"] }) { id } }`,
    );
    expect(unknown.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    for (const q of [
      `{ adminModelKeys { total } }`,
      `{ adminUsage { total } }`,
      `mutation { adminRevokeModelKey(id: "${demoKey.id}") { id } }`,
    ])
      expect((await gql(plain, q)).errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await gateway(boot.api_key)).status).toBe(200);
  });

  it('never shows a key it made again: not in a list, a read or any audit event', async () => {
    expect(texts.length).toBeGreaterThan(5);
    const all = [
      (await api(platform, 'GET', '/keys?limit=200')).text,
      (await api(platform, 'GET', '/audit-events?limit=200')).text,
      (await api(platform, 'GET', '/audit-events?limit=200&type=key.')).text,
    ].join('\n');
    for (const t of texts) expect(all).not.toContain(t.slice(10));
    const creates = await auditEvents('key.create');
    expect(creates.length).toBeGreaterThan(3);
    expect(creates.filter((e) => e.outcome === 'success')[0]).toMatchObject({ actor: { kind: 'user' }, target: { kind: 'key' } });
  });
});
