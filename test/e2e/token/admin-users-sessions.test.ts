import { adminFixture, REDIRECT, secretsIn, type AdminFixture } from './admin-fixture';

const PASSWORD = 'a long enough password';

/**
 * The token service's admin API over HTTP: users and single sign-on sessions, with both
 * administrator roles; escalation and reaching across realms; optimistic concurrency; paging.
 */
describe('admin API: users and sessions', () => {
  let f: AdminFixture;
  let r2: string;
  let realmAdmin: string;
  const secrets: string[] = [PASSWORD];
  const introspect = async (realm: string, token: string) =>
    (await f.call('POST', '/auth/api/v1/oauth/connect/introspect', { body: { realm, token: token.replace('Bearer ', '') } })).body.active;

  beforeAll(async () => {
    // Three wrong passwords lock an account (from the address, and for everyone); the address itself is not throttled here.
    f = await adminFixture({ LOCKOUT_THRESHOLD: '3', LOCKOUT_ACCOUNT_THRESHOLD: '3', AUTH_FAILURES_PER_MINUTE: '1000' });
    r2 = (await f.call('POST', '/realms', { auth: f.platform, body: { name: 'second' } })).body.realm;
    await f.call('POST', `/realms/${r2}/users`, { auth: f.platform, body: { username: 'ra', password: PASSWORD, roles: ['realm-admin'] } });
    // A platform administrator whose account lives in the second realm: its realm administrator may not touch it.
    await f.call('POST', `/realms/${r2}/users`, {
      auth: f.platform,
      body: { username: 'boss', password: PASSWORD, roles: ['platform-admin'] },
    });
    for (const realm of [f.realm, r2])
      await f.call('POST', `/realms/${realm}/clients`, {
        auth: f.platform,
        body: { client_id: 'spa', public: true, redirect_uris: [REDIRECT] },
      });
    realmAdmin = await f.bearer(r2, 'ra', PASSWORD);
    secrets.push(f.adminPassword);
  }, 60_000);
  afterAll(() => f?.stop());

  it('users: created (never a password in the answer), read with an ETag, listed, filtered and changed by both roles', async () => {
    for (const [auth, realm] of [
      [f.platform, f.realm],
      [() => realmAdmin, r2],
    ] as const) {
      const as = typeof auth === 'function' ? auth() : auth;
      const made = await f.call('POST', `/realms/${realm}/users`, {
        auth: as,
        body: { username: 'ann', password: PASSWORD, roles: ['search:read'], email: 'ann@example.com' },
      });
      expect(made.status).toBe(201);
      expect(made.body).toEqual({
        id: expect.any(String),
        username: 'ann',
        realm,
        tenant_id: realm,
        email: 'ann@example.com',
        email_verified: false,
        enabled: true,
        locked: false,
        roles: ['search:read'],
        created_at: expect.any(String),
        version: 1,
      });
      expect(made.headers.get('etag')).toBe('"1"');
      expect((await f.call('POST', `/realms/${realm}/users`, { auth: as, body: { username: 'ANN', password: PASSWORD } })).status).toBe(
        409,
      );
      expect((await f.call('POST', `/realms/${realm}/users`, { auth: as, body: { username: 'short', password: 'short' } })).status).toBe(
        422,
      );
      expect(
        (await f.call('POST', `/realms/${realm}/users`, { auth: as, body: { username: 'x', password: PASSWORD, hash: 'h' } })).status,
      ).toBe(422);

      const read = await f.call('GET', `/realms/${realm}/users/ANN`, { auth: as });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(made.body);
      expect((await f.call('GET', `/realms/${realm}/users/nobody`, { auth: as })).status).toBe(404);

      const list = await f.call('GET', `/realms/${realm}/users?q=an&role=search:read&enabled=true`, { auth: as });
      expect(list.body).toMatchObject({ items: [{ username: 'ann' }], total: 1, next_cursor: null });

      const token = await f.bearer(realm, 'ann', PASSWORD);
      const changed = await f.call('PATCH', `/realms/${realm}/users/ann`, {
        auth: as,
        headers: { 'if-match': '"1"' },
        body: { roles: ['search:read', 'search:write'], email: 'ann@new.example' },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ roles: ['search:read', 'search:write'], email: 'ann@new.example', version: 2 });
      expect(changed.headers.get('etag')).toBe('"2"');
      // New roles: the tokens carrying the old ones stop working.
      expect(await introspect(realm, token)).toBe('false');

      const token2 = await f.bearer(realm, 'ann', PASSWORD);
      const off = await f.call('PATCH', `/realms/${realm}/users/ann`, { auth: as, body: { enabled: false } });
      expect(off.body).toMatchObject({ enabled: false, version: 3 });
      expect(await introspect(realm, token2)).toBe('false');
      expect((await f.login(realm, 'ann', PASSWORD)).status).toBe(401);
      expect((await f.call('GET', `/realms/${realm}/users?enabled=false`, { auth: as })).body.items.map((u: any) => u.username)).toEqual([
        'ann',
      ]);
      await f.call('PATCH', `/realms/${realm}/users/ann`, { auth: as, body: { enabled: true } });

      const token3 = await f.bearer(realm, 'ann', PASSWORD);
      const pw = await f.call('PUT', `/realms/${realm}/users/ann/password`, { auth: as, body: { password: 'another long password' } });
      expect(pw.status).toBe(200);
      expect(pw.body).toMatchObject({ username: 'ann', sessions_ended: 1 });
      secrets.push('another long password');
      expect(await introspect(realm, token3)).toBe('false');
      expect((await f.login(realm, 'ann', PASSWORD)).status).toBe(401);
      const token4 = await f.bearer(realm, 'ann', 'another long password');

      const out = await f.call('POST', `/realms/${realm}/users/ann/logout`, { auth: as });
      expect(out.body).toEqual({ realm, username: 'ann', sessions_ended: 1 });
      expect(await introspect(realm, token4)).toBe('false');
      await f.call('PUT', `/realms/${realm}/users/ann/password`, { auth: as, body: { password: PASSWORD } });
    }
  });

  it('sessions: single sign-on sessions listed (filtered by user) and ended one by one', async () => {
    for (const [auth, realm] of [
      [f.platform, f.realm],
      [realmAdmin, r2],
    ] as const) {
      await f.browserSignIn(realm, 'spa', 'ann', PASSWORD);
      await f.browserSignIn(realm, 'spa', 'ann', PASSWORD);
      const list = await f.call('GET', `/realms/${realm}/sessions?username=ann`, { auth });
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(2);
      expect(list.body.items[0]).toEqual({
        id: expect.any(String),
        realm,
        username: 'ann',
        auth_time: expect.any(String),
        created_at: expect.any(String),
        expires_at: expect.any(String),
      });
      expect((await f.call('GET', `/realms/${realm}/sessions?username=nobody`, { auth })).status).toBe(404);
      const [first, second] = list.body.items.map((s: any) => s.id);
      const ended = await f.call('DELETE', `/realms/${realm}/sessions/${first}`, { auth });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ realm, id: first });
      expect((await f.call('DELETE', `/realms/${realm}/sessions/${first}`, { auth })).status).toBe(404);
      const left = await f.call('GET', `/realms/${realm}/sessions`, { auth });
      expect(left.body.items.map((s: any) => s.id)).toEqual([second]);
      // Ending all of the user's sessions ends the single sign-on one too.
      await f.call('POST', `/realms/${realm}/users/ann/logout`, { auth });
      expect((await f.call('GET', `/realms/${realm}/sessions`, { auth })).body.total).toBe(0);
    }
  });

  it("a realm administrator reaches no other realm's users or sessions by any path (404)", async () => {
    await f.browserSignIn(f.realm, 'spa', 'ann', PASSWORD);
    const theirs = (await f.call('GET', `/realms/${f.realm}/sessions`, { auth: f.platform })).body.items[0].id;
    for (const [method, path, body] of [
      ['GET', `/realms/${f.realm}/users`],
      ['POST', `/realms/${f.realm}/users`, { username: 'intruder', password: PASSWORD }],
      ['GET', `/realms/${f.realm}/users/admin`],
      ['PATCH', `/realms/${f.realm}/users/ann`, { enabled: false }],
      ['PUT', `/realms/${f.realm}/users/admin/password`, { password: PASSWORD }],
      ['POST', `/realms/${f.realm}/users/ann/unlock`],
      ['POST', `/realms/${f.realm}/users/ann/logout`],
      ['GET', `/realms/${f.realm}/sessions`],
      ['DELETE', `/realms/${f.realm}/sessions/${theirs}`],
      // Another realm's session named under its own realm's path.
      ['DELETE', `/realms/${r2}/sessions/${theirs}`],
    ] as const) {
      const r = await f.call(method, path, { auth: realmAdmin, body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    expect((await f.call('GET', `/realms/${f.realm}/sessions`, { auth: f.platform })).body.items.map((s: any) => s.id)).toEqual([theirs]);
    expect((await f.login(f.realm, 'ann', PASSWORD)).status).toBe(200);
  });

  it('escalation: a realm administrator grants no one platform-admin (itself included), assigns no other tenant, and touches no platform administrator', async () => {
    const me = await f.call('PATCH', `/realms/${r2}/users/ra`, { auth: realmAdmin, body: { roles: ['realm-admin', 'platform-admin'] } });
    expect(me.status).toBe(403);
    expect((await f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, body: { roles: ['platform-admin'] } })).status).toBe(403);
    expect(
      (
        await f.call('POST', `/realms/${r2}/users`, {
          auth: realmAdmin,
          body: { username: 'evil', password: PASSWORD, roles: ['platform-admin'] },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await f.call('POST', `/realms/${r2}/users`, {
          auth: realmAdmin,
          body: { username: 'elsewhere', password: PASSWORD, tenant_id: 'other-tenant' },
        })
      ).status,
    ).toBe(403);
    expect((await f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, body: { tenant_id: 'other-tenant' } })).status).toBe(403);

    await f.browserSignIn(r2, 'spa', 'boss', PASSWORD);
    const bossSession = (await f.call('GET', `/realms/${r2}/sessions?username=boss`, { auth: realmAdmin })).body.items[0].id;
    for (const [method, path, body] of [
      ['PUT', `/realms/${r2}/users/boss/password`, { password: 'taken over password' }],
      ['PATCH', `/realms/${r2}/users/boss`, { enabled: false }],
      ['PATCH', `/realms/${r2}/users/boss`, { roles: [] }],
      ['POST', `/realms/${r2}/users/boss/unlock`],
      ['POST', `/realms/${r2}/users/boss/logout`],
      ['DELETE', `/realms/${r2}/sessions/${bossSession}`],
    ] as const) {
      const r = await f.call(method, path, { auth: realmAdmin, body });
      expect([method, path, r.status]).toEqual([method, path, 403]);
    }
    const boss = await f.call('GET', `/realms/${r2}/users/boss`, { auth: f.platform });
    expect(boss.body).toMatchObject({ roles: ['platform-admin'], enabled: true, version: 1 });
    expect((await f.login(r2, 'boss', PASSWORD)).status).toBe(200);
    expect((await f.call('GET', `/realms/${r2}/users/ra`, { auth: f.platform })).body.roles).toEqual(['realm-admin']);
    // Its own tenant is fine.
    expect((await f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, body: { tenant_id: r2 } })).status).toBe(200);
  });

  it('a lockout, then an unlock, lets the user sign in again', async () => {
    await f.call('POST', `/realms/${r2}/users`, { auth: f.platform, body: { username: 'locky', password: PASSWORD } });
    for (let i = 0; i < 3; i++) expect((await f.login(r2, 'locky', 'wrong password!')).status).toBe(401);
    expect((await f.login(r2, 'locky', PASSWORD)).status).toBe(401);
    const locked = await f.call('GET', `/realms/${r2}/users/locky`, { auth: realmAdmin });
    expect(locked.body.locked).toBe(true);
    const unlocked = await f.call('POST', `/realms/${r2}/users/locky/unlock`, { auth: realmAdmin });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ username: 'locky', locked: false, version: locked.body.version + 1 });
    expect((await f.login(r2, 'locky', PASSWORD)).status).toBe(200);
  });

  it('optimistic concurrency: a stale If-Match is 412; two updates from one version, one wins and the other is 412', async () => {
    const read = await f.call('GET', `/realms/${r2}/users/ann`, { auth: realmAdmin });
    const etag = read.headers.get('etag')!;
    const stale = `"${read.body.version - 1}"`;
    expect(
      (await f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, headers: { 'if-match': stale }, body: { email: null } }))
        .status,
    ).toBe(412);
    expect(
      (await f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, headers: { 'if-match': 'junk' }, body: { email: null } }))
        .status,
    ).toBe(400);
    const both = await Promise.all(
      ['one@example.com', 'two@example.com'].map((email) =>
        f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, headers: { 'if-match': etag }, body: { email } }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = both.find((r) => r.status === 200)!.body;
    const now = await f.call('GET', `/realms/${r2}/users/ann`, { auth: realmAdmin });
    expect(now.body).toMatchObject({ email: winner.email, version: read.body.version + 1 });

    // Clients and realms alike.
    const client = await f.call('GET', `/realms/${r2}/clients/spa`, { auth: f.platform });
    const clients = await Promise.all(
      [['https://a.example'], ['https://b.example']].map((web_origins) =>
        f.call('PATCH', `/realms/${r2}/clients/spa`, {
          auth: f.platform,
          headers: { 'if-match': client.headers.get('etag')! },
          body: { web_origins },
        }),
      ),
    );
    expect(clients.map((r) => r.status).sort()).toEqual([200, 412]);
    const realm = await f.call('GET', `/realms/${r2}`, { auth: f.platform });
    const realms = await Promise.all(
      [100, 200].map((access_token_lifespan) =>
        f.call('PATCH', `/realms/${r2}`, {
          auth: f.platform,
          headers: { 'if-match': realm.headers.get('etag')! },
          body: { access_token_lifespan },
        }),
      ),
    );
    expect(realms.map((r) => r.status).sort()).toEqual([200, 412]);

    // Without If-Match both apply, one after the other: nothing is lost, the version moves twice.
    const free = await Promise.all(
      [['x:1'], ['x:2']].map((roles) => f.call('PATCH', `/realms/${r2}/users/ann`, { auth: realmAdmin, body: { roles } })),
    );
    expect(free.map((r) => r.status)).toEqual([200, 200]);
    expect((await f.call('GET', `/realms/${r2}/users/ann`, { auth: realmAdmin })).body.version).toBe(now.body.version + 2);
  });

  it('paging: 120 users listed 50 at a time, each exactly once, in order; a foreign cursor is 400, a limit past 200 is 422', async () => {
    for (let i = 0; i < 120; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          f.call('POST', `/realms/${r2}/users`, {
            auth: realmAdmin,
            body: { username: `bulk-${String(i + j).padStart(3, '0')}`, password: PASSWORD },
          }),
        ),
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/realms/${r2}/users?q=bulk-&limit=50${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await f.call('GET', q, { auth: realmAdmin });
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(120);
      seen.push(...page.body.items.map((u: any) => u.username));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`));
    const newest = await f.call('GET', `/realms/${r2}/users?q=bulk-&sort=-created_at&limit=1`, { auth: realmAdmin });
    expect(newest.body.items).toHaveLength(1);
    expect((await f.call('GET', `/realms/${r2}/users?cursor=not-a-cursor`, { auth: realmAdmin })).status).toBe(400);
    expect((await f.call('GET', `/realms/${r2}/users?limit=201`, { auth: realmAdmin })).status).toBe(422);
    expect((await f.call('GET', `/realms/${r2}/users?sort=password`, { auth: realmAdmin })).status).toBe(400);
  }, 60_000);

  it('never a password or hash in lists or the audit trail; every change is there with actor, type, outcome and address', async () => {
    const list = await f.call('GET', `/realms/${r2}/users?limit=200`, { auth: f.platform });
    expect(list.text).not.toMatch(/password|hash|scrypt/i);
    const events = await f.call('GET', '/audit-events?limit=200&type=user.', { auth: f.platform });
    const types = new Set(events.body.items.map((e: any) => `${e.type} ${e.outcome}`));
    for (const t of [
      'user.create success',
      'user.update success',
      'user.update failure',
      'user.password success',
      'user.password failure',
      'user.unlock success',
      'user.logout success',
    ])
      expect(types).toContain(t);
    const pw = events.body.items.find((e: any) => e.type === 'user.password' && e.outcome === 'success');
    expect(pw).toMatchObject({
      actor: { kind: 'user', name: expect.any(String) },
      realm: expect.any(String),
      target: { kind: 'user', id: 'ann' },
      address: expect.any(String),
    });
    const sessions = await f.call('GET', '/audit-events?limit=200&type=session.', { auth: f.platform });
    expect(sessions.body.items.map((e: any) => `${e.type} ${e.outcome}`)).toEqual(
      expect.arrayContaining(['session.end success', 'session.end failure']),
    );
    const all = await f.call('GET', '/audit-events?limit=200', { auth: f.platform });
    expect(secretsIn(all.text, [...secrets, 'taken over password'])).toEqual([]);
  });
});
