import { adminFixture, secretsIn, type AdminFixture } from './admin-fixture';

/**
 * The token service's admin API over HTTP: realms and clients, as a platform administrator (the
 * first start's `admin`), as a realm administrator of a second realm, and as a plain user (403).
 */
describe('admin API: realms and clients', () => {
  let f: AdminFixture;
  let r2: string;
  let realmAdmin: string;
  let plain: string;
  const secrets: string[] = [];

  beforeAll(async () => {
    f = await adminFixture();
    const made = await f.call('POST', '/realms', { auth: f.platform, body: { name: 'second', access_token_lifespan: 120 } });
    expect(made.status).toBe(201);
    r2 = made.body.realm;
    const ra = await f.call('POST', `/realms/${r2}/users`, {
      auth: f.platform,
      body: { username: 'ra', password: 'realm admin password', roles: ['realm-admin'] },
    });
    expect(ra.status).toBe(201);
    realmAdmin = await f.bearer(r2, 'ra', 'realm admin password');
    await f.call('POST', `/realms/${f.realm}/users`, { auth: f.platform, body: { username: 'plain', password: 'plain user password' } });
    plain = await f.bearer(f.realm, 'plain', 'plain user password');
    secrets.push(f.adminPassword, 'realm admin password', 'plain user password');
  }, 60_000);
  afterAll(() => f?.stop());

  it('realms: a platform administrator creates, reads (by id or name, with an ETag), lists, changes and makes one the default', async () => {
    const made = await f.call('POST', '/realms', { auth: f.platform, body: { name: 'third' } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      realm: expect.any(String),
      name: 'third',
      enabled: true,
      access_token_lifespan: 300,
      refresh_token_lifespan: 1800,
      created_at: expect.any(String),
      default: false,
      version: 1,
    });
    expect(made.headers.get('etag')).toBe('"1"');
    const id = made.body.realm;

    const byName = await f.call('GET', '/realms/THIRD', { auth: f.platform });
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(made.body);
    expect(byName.headers.get('etag')).toBe('"1"');

    expect((await f.call('POST', '/realms', { auth: f.platform, body: { name: 'Third' } })).status).toBe(409);
    expect((await f.call('POST', '/realms', { auth: f.platform, body: { name: 'x', extra: 1 } })).status).toBe(422);
    expect((await f.call('POST', '/realms', { auth: f.platform, body: { name: 'bad name!' } })).status).toBe(400);

    const changed = await f.call('PATCH', `/realms/${id}`, {
      auth: f.platform,
      headers: { 'if-match': '"1"' },
      body: { name: 'third-renamed', access_token_lifespan: 60 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'third-renamed', access_token_lifespan: 60, version: 2 });
    expect(changed.headers.get('etag')).toBe('"2"');
    expect((await f.call('PATCH', `/realms/${id}`, { auth: f.platform, body: { name: 'second' } })).status).toBe(409);
    expect((await f.call('PATCH', `/realms/${id}`, { auth: f.platform, body: { access_token_lifespan: 99999 } })).status).toBe(400);

    const list = await f.call('GET', '/realms?sort=name', { auth: f.platform });
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: any) => r.name)).toEqual(
      ['default', 'second', 'third-renamed'].filter((n) => list.body.items.some((r: any) => r.name === n)),
    );
    expect(list.body).toMatchObject({ total: 3, next_cursor: null });
    const filtered = await f.call('GET', '/realms?name=RENAMED', { auth: f.platform });
    expect(filtered.body.items.map((r: any) => r.realm)).toEqual([id]);

    const def = await f.call('POST', `/realms/${id}/default`, { auth: f.platform });
    expect(def.status).toBe(200);
    expect(def.body).toMatchObject({ realm: id, default: true });
    expect((await f.call('POST', `/realms/${f.realm}/default`, { auth: f.platform })).body.default).toBe(true);

    const disabled = await f.call('PATCH', `/realms/${id}`, { auth: f.platform, body: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, version: 3 });
    expect((await f.call('GET', '/realms?enabled=false', { auth: f.platform })).body.items.map((r: any) => r.realm)).toEqual([id]);

    const rotated = await f.call('POST', `/realms/${id}/keys`, { auth: f.platform });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ realm: id, kid: expect.any(String), keys: 2 });
  });

  it('realms: a realm administrator sees only its own realm and changes none; another realm is 404 as if it did not exist', async () => {
    const list = await f.call('GET', '/realms', { auth: realmAdmin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: any) => r.realm)).toEqual([r2]);
    expect(list.body.total).toBe(1);
    expect((await f.call('GET', `/realms/${r2}`, { auth: realmAdmin })).status).toBe(200);
    expect((await f.call('GET', '/realms/second', { auth: realmAdmin })).status).toBe(200);
    const other = await f.call('GET', `/realms/${f.realm}`, { auth: realmAdmin });
    const none = await f.call('GET', '/realms/no-such-realm', { auth: realmAdmin });
    expect(other.status).toBe(404);
    expect(none.status).toBe(404);
    expect((await f.call('GET', '/realms/default', { auth: realmAdmin })).status).toBe(404);
    expect((await f.call('POST', '/realms', { auth: realmAdmin, body: { name: 'mine' } })).status).toBe(403);
    expect((await f.call('PATCH', `/realms/${r2}`, { auth: realmAdmin, body: { access_token_lifespan: 60 } })).status).toBe(403);
    expect((await f.call('PATCH', `/realms/${f.realm}`, { auth: realmAdmin, body: { enabled: false } })).status).toBe(404);
    expect((await f.call('POST', `/realms/${r2}/default`, { auth: realmAdmin })).status).toBe(403);
    expect((await f.call('POST', `/realms/${r2}/keys`, { auth: realmAdmin })).status).toBe(403);
    expect((await f.call('POST', `/realms/${f.realm}/keys`, { auth: realmAdmin })).status).toBe(404);
  });

  it('clients: confidential (secret shown once) and public, read with an ETag, listed without secrets, filtered, changed, secret regenerated', async () => {
    for (const [auth, realm] of [
      [f.platform, f.realm],
      [realmAdmin, r2],
    ] as const) {
      const made = await f.call('POST', `/realms/${realm}/clients`, {
        auth,
        body: { client_id: 'billing', roles: ['search:read'], scopes: ['openid', 'search'], web_origins: ['https://billing.example'] },
      });
      expect(made.status).toBe(201);
      expect(made.body).toEqual({
        client_id: 'billing',
        realm,
        tenant_id: realm,
        enabled: true,
        public: false,
        roles: ['search:read'],
        scopes: ['openid', 'search'],
        redirect_uris: [],
        post_logout_redirect_uris: [],
        web_origins: ['https://billing.example'],
        created_at: expect.any(String),
        version: 1,
        client_secret: expect.any(String),
      });
      secrets.push(made.body.client_secret);
      // The secret works: the client gets a token with it.
      const token = await f.call('POST', '/auth/api/v1/oauth/connect/token', {
        body: { realm, client_id: 'billing', client_secret: made.body.client_secret },
      });
      expect(token.status).toBe(200);

      const spa = await f.call('POST', `/realms/${realm}/clients`, {
        auth,
        body: { client_id: 'spa', public: true, redirect_uris: ['https://app.example/cb'] },
      });
      expect(spa.status).toBe(201);
      expect(spa.body).toMatchObject({ public: true, redirect_uris: ['https://app.example/cb'] });
      expect(spa.body.client_secret).toBeUndefined();
      expect((await f.call('POST', `/realms/${realm}/clients`, { auth, body: { client_id: 'SPA', public: true } })).status).toBe(201);
      expect((await f.call('POST', `/realms/${realm}/clients`, { auth, body: { client_id: 'spa' } })).status).toBe(409);
      expect(
        (await f.call('POST', `/realms/${realm}/clients`, { auth, body: { client_id: 'bad', redirect_uris: ['https://x.example/*'] } }))
          .status,
      ).toBe(400);

      const read = await f.call('GET', `/realms/${realm}/clients/billing`, { auth });
      expect(read.status).toBe(200);
      expect(read.headers.get('etag')).toBe('"1"');
      expect(read.body.client_secret).toBeUndefined();
      expect((await f.call('GET', `/realms/${realm}/clients/nobody`, { auth })).status).toBe(404);

      const list = await f.call('GET', `/realms/${realm}/clients?limit=200`, { auth });
      expect(list.status).toBe(200);
      expect(list.body.items.map((c: any) => c.client_id)).toEqual(
        expect.arrayContaining(['billing', 'spa', 'platform-login', 'platform-console']),
      );
      expect(list.text).not.toContain('secret');
      expect((await f.call('GET', `/realms/${realm}/clients?q=BILL`, { auth })).body.items.map((c: any) => c.client_id)).toEqual([
        'billing',
      ]);
      const confidential = (await f.call('GET', `/realms/${realm}/clients?public=false`, { auth })).body.items.map((c: any) => c.client_id);
      expect(confidential).toContain('billing');
      expect(confidential).not.toContain('spa');
      const ids: string[] = list.body.items.map((c: any) => c.client_id);
      const desc = await f.call('GET', `/realms/${realm}/clients?sort=-client_id&limit=2`, { auth });
      expect(desc.body.items.map((c: any) => c.client_id)).toEqual([...ids].sort().reverse().slice(0, 2));
      expect(desc.body).toMatchObject({ next_cursor: expect.any(String), total: ids.length });
      const rest = await f.call('GET', `/realms/${realm}/clients?sort=-client_id&limit=200&cursor=${desc.body.next_cursor}`, { auth });
      expect(rest.body.items.map((c: any) => c.client_id)).toEqual([...ids].sort().reverse().slice(2));

      const changed = await f.call('PATCH', `/realms/${realm}/clients/billing`, {
        auth,
        headers: { 'if-match': read.headers.get('etag')! },
        body: { roles: ['search:write'], redirect_uris: ['https://billing.example/cb'] },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ roles: ['search:write'], redirect_uris: ['https://billing.example/cb'], version: 2 });
      expect(changed.headers.get('etag')).toBe('"2"');
      // Its roles changed: the token issued before carries the old ones, so it no longer works.
      const intro = await f.call('POST', '/auth/api/v1/oauth/connect/introspect', { body: { realm, token: token.body.access_token } });
      expect(intro.body.active).toBe('false');

      const regen = await f.call('POST', `/realms/${realm}/clients/billing/secret`, { auth });
      expect(regen.status).toBe(200);
      expect(regen.body.client_secret).toEqual(expect.any(String));
      secrets.push(regen.body.client_secret);
      const old = await f.call('POST', '/auth/api/v1/oauth/connect/token', {
        body: { realm, client_id: 'billing', client_secret: made.body.client_secret },
      });
      expect(old.status).toBe(401);
      const fresh = await f.call('POST', '/auth/api/v1/oauth/connect/token', {
        body: { realm, client_id: 'billing', client_secret: regen.body.client_secret },
      });
      expect(fresh.status).toBe(200);
      expect((await f.call('POST', `/realms/${realm}/clients/spa/secret`, { auth })).status).toBe(400);

      const off = await f.call('PATCH', `/realms/${realm}/clients/billing`, { auth, body: { enabled: false } });
      expect(off.body.enabled).toBe(false);
      expect((await f.call('GET', `/realms/${realm}/clients?enabled=false`, { auth })).body.items.map((c: any) => c.client_id)).toEqual([
        'billing',
      ]);
      const refused = await f.call('POST', '/auth/api/v1/oauth/connect/token', {
        body: { realm, client_id: 'billing', client_secret: regen.body.client_secret },
      });
      expect(refused.status).toBe(401);
    }
  });

  it("clients: a realm administrator reaches no other realm's client by any path, and gives no other tenant and no platform-admin", async () => {
    for (const [method, path, body] of [
      ['GET', `/realms/${f.realm}/clients`],
      ['POST', `/realms/${f.realm}/clients`, { client_id: 'intruder' }],
      ['GET', `/realms/${f.realm}/clients/billing`],
      ['PATCH', `/realms/${f.realm}/clients/billing`, { enabled: true }],
      ['POST', `/realms/${f.realm}/clients/billing/secret`],
    ] as const) {
      const r = await f.call(method, path, { auth: realmAdmin, body });
      expect([path, r.status]).toEqual([path, 404]);
    }
    const escalate = await f.call('POST', `/realms/${r2}/clients`, {
      auth: realmAdmin,
      body: { client_id: 'root', roles: ['platform-admin'] },
    });
    expect(escalate.status).toBe(403);
    const tenant = await f.call('POST', `/realms/${r2}/clients`, {
      auth: realmAdmin,
      body: { client_id: 'other-tenant', tenant_id: 'someone-else' },
    });
    expect(tenant.status).toBe(403);
    expect((await f.call('PATCH', `/realms/${r2}/clients/spa`, { auth: realmAdmin, body: { roles: ['platform-admin'] } })).status).toBe(
      403,
    );
    expect((await f.call('PATCH', `/realms/${r2}/clients/spa`, { auth: realmAdmin, body: { tenant_id: 'someone-else' } })).status).toBe(
      403,
    );
    expect((await f.call('GET', `/realms/${r2}/clients/root`, { auth: f.platform })).status).toBe(404);

    // A client a platform administrator made platform-admin in the realm: the realm administrator may not touch it.
    await f.call('POST', `/realms/${r2}/clients`, { auth: f.platform, body: { client_id: 'ops', roles: ['platform-admin'] } });
    expect((await f.call('GET', `/realms/${r2}/clients/ops`, { auth: realmAdmin })).status).toBe(200);
    expect((await f.call('PATCH', `/realms/${r2}/clients/ops`, { auth: realmAdmin, body: { enabled: false } })).status).toBe(403);
    expect((await f.call('POST', `/realms/${r2}/clients/ops/secret`, { auth: realmAdmin })).status).toBe(403);
    expect((await f.call('GET', `/realms/${r2}/clients/ops`, { auth: f.platform })).body).toMatchObject({ enabled: true, version: 1 });
  });

  it('a plain user gets 403 on every route; no token gets 401', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/realms'],
      ['POST', '/realms', { name: 'nope' }],
      ['GET', `/realms/${f.realm}`],
      ['PATCH', `/realms/${f.realm}`, { enabled: false }],
      ['POST', `/realms/${f.realm}/default`],
      ['POST', `/realms/${f.realm}/keys`],
      ['GET', `/realms/${f.realm}/clients`],
      ['POST', `/realms/${f.realm}/clients`, { client_id: 'nope' }],
      ['GET', `/realms/${f.realm}/clients/billing`],
      ['PATCH', `/realms/${f.realm}/clients/billing`, { enabled: true }],
      ['POST', `/realms/${f.realm}/clients/billing/secret`],
      ['GET', `/realms/${f.realm}/users`],
      ['POST', `/realms/${f.realm}/users`, { username: 'nope', password: 'long enough password' }],
      ['GET', `/realms/${f.realm}/users/plain`],
      ['PATCH', `/realms/${f.realm}/users/plain`, { roles: ['platform-admin'] }],
      ['PUT', `/realms/${f.realm}/users/admin/password`, { password: 'long enough password' }],
      ['POST', `/realms/${f.realm}/users/plain/unlock`],
      ['POST', `/realms/${f.realm}/users/admin/logout`],
      ['GET', `/realms/${f.realm}/sessions`],
      ['DELETE', `/realms/${f.realm}/sessions/some-id`],
    ];
    for (const [method, path, body] of routes) {
      expect([method, path, (await f.call(method, path, { auth: plain, body })).status]).toEqual([method, path, 403]);
      expect([method, path, (await f.call(method, path, { body })).status]).toEqual([method, path, 401]);
    }
    expect((await f.call('GET', `/realms/${f.realm}/users/plain`, { auth: f.platform })).body.roles).toEqual([]);
  });

  it('the OpenAPI document and the docs page describe every route, with the ETag and If-Match', async () => {
    const doc = await f.call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      '/realms',
      '/realms/{realm}',
      '/realms/{realm}/default',
      '/realms/{realm}/keys',
      '/realms/{realm}/clients',
      '/realms/{realm}/clients/{client_id}',
      '/realms/{realm}/clients/{client_id}/secret',
      '/realms/{realm}/users',
      '/realms/{realm}/users/{username}',
      '/realms/{realm}/users/{username}/password',
      '/realms/{realm}/users/{username}/unlock',
      '/realms/{realm}/users/{username}/logout',
      '/realms/{realm}/sessions',
      '/realms/{realm}/sessions/{id}',
    ])
      expect(paths.map((x) => x.replace(/^\/admin\/api\/v1/, ''))).toContain(p);
    const patch = Object.entries(doc.body.paths).find(([k]) => k.endsWith('/realms/{realm}/users/{username}'))![1] as any;
    expect(patch.patch.parameters.map((x: any) => x.name)).toContain('if-match');
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining(['AdminRealm', 'AdminClient', 'AdminUser', 'AdminSession']),
    );
    expect((await f.call('GET', '/docs')).status).toBe(200);
  });

  it('the audit trail holds every change with who, what, where and the outcome, and never a secret', async () => {
    const events = await f.call('GET', '/audit-events?limit=200&type=client.', { auth: f.platform });
    expect(events.status).toBe(200);
    const types = events.body.items.map((e: any) => `${e.type} ${e.outcome}`);
    expect(types).toEqual(
      expect.arrayContaining(['client.create success', 'client.update success', 'client.secret success', 'client.create failure']),
    );
    const made = events.body.items.find(
      (e: any) => e.type === 'client.create' && e.outcome === 'success' && e.target.id === 'billing' && e.realm === r2,
    );
    expect(made).toMatchObject({
      service: 'token',
      actor: { kind: 'user', realm: r2, name: 'ra' },
      realm: r2,
      tenant: r2,
      target: { kind: 'client', id: expect.any(String) },
      address: expect.any(String),
    });
    const refused = events.body.items.find((e: any) => e.type === 'client.create' && e.outcome === 'failure' && e.target.id === 'root');
    expect(refused).toMatchObject({ actor: { name: 'ra' }, reason: expect.stringContaining('platform-admin') });
    const all = await f.call('GET', '/audit-events?limit=200', { auth: f.platform });
    expect(all.body.items.map((e: any) => e.type)).toEqual(
      expect.arrayContaining(['realm.create', 'realm.update', 'realm.default', 'realm.key-rotate', 'user.create']),
    );
    expect(secretsIn(all.text, secrets)).toEqual([]);
    expect(all.text).not.toMatch(/client_secret|password"/);
    // A realm administrator reads only its realm's events.
    const own = await f.call('GET', '/audit-events?limit=200', { auth: realmAdmin });
    expect(own.body.items.length).toBeGreaterThan(0);
    expect(own.body.items.every((e: any) => e.realm === r2)).toBe(true);
  });
});
