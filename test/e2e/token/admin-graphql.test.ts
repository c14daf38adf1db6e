import { adminPlatform, asGraph, browserSignIn, camelView, codes, F, ok, present, type AdminPlatform } from './admin-graphql-fixture';

/**
 * The token subgraph's admin fields through the gateway's /graphql, as a platform administrator:
 * every field works, its answers are the admin REST API's views camelCased, stale versions are
 * PRECONDITION_FAILED, a client's secret is only in the answers that made it, and every change is
 * in `auditEvents` as in `GET /audit-events`, without a secret.
 */
jest.setTimeout(60_000);

let a: AdminPlatform;
let admin: string;
let realm: string;

beforeAll(async () => {
  // Three wrong passwords lock an account for every address: the unlock case needs a lock.
  a = await adminPlatform({ LOCKOUT_ACCOUNT_THRESHOLD: '3' });
  realm = a.boot.realm;
  admin = await a.login(realm, a.boot.admin_username, a.boot.admin_password);
}, 90_000);
afterAll(() => a?.stop());

const gql = (query: string, variables?: Record<string, unknown>) => a.gql(admin, query, variables);

describe('realms', () => {
  it('are created, read by id or name, listed a page at a time, as REST shows them', async () => {
    const made = ok(
      await gql(`mutation ($i: AdminCreateRealmInput!) { adminCreateRealm(input: $i) { ${F.realm} } }`, {
        i: { name: 'gql-one', accessTokenLifespan: 120 },
      }),
    ).adminCreateRealm;
    expect(made).toMatchObject({
      name: 'gql-one',
      enabled: true,
      accessTokenLifespan: 120,
      refreshTokenLifespan: 1800,
      default: false,
      version: 1,
    });
    const rest = await a.rest(admin, 'GET', `/realms/${made.realm}`);
    expect(made).toEqual(camelView(rest.body));
    expect(ok(await gql(`{ adminRealm(realm: "gql-one") { ${F.realm} } }`)).adminRealm).toEqual(made);

    ok(await gql(`mutation { adminCreateRealm(input: { name: "gql-two" }) { realm } }`));
    const first = ok(
      await gql(`{ adminRealms(name: "GQL-", first: 1, sort: "-name") { items { ${F.realm} } nextCursor total } }`),
    ).adminRealms;
    const restFirst = (await a.rest(admin, 'GET', '/realms?name=GQL-&limit=1&sort=-name')).body;
    expect(first).toEqual({ items: restFirst.items.map(camelView), nextCursor: restFirst.next_cursor, total: 2 });
    expect(first.items[0].name).toBe('gql-two');
    const second = ok(
      await gql(
        `query ($after: String) { adminRealms(name: "gql-", first: 1, after: $after, sort: "-name") { items { name } nextCursor total } }`,
        {
          after: first.nextCursor,
        },
      ),
    ).adminRealms;
    expect(second).toEqual({ items: [{ name: 'gql-one' }], nextCursor: null, total: 2 });
    const all = ok(await gql(`{ adminRealms(sort: "createdAt") { items { realm default } total } }`)).adminRealms;
    expect(all.total).toBe(3);
    expect(all.items.filter((r: { default: boolean }) => r.default)).toEqual([{ realm, default: true }]);
  });

  it('are updated at the version read; a stale version is PRECONDITION_FAILED and changes nothing', async () => {
    const update = `mutation ($r: ID!, $i: AdminUpdateRealmInput!, $v: Int) { adminUpdateRealm(realm: $r, input: $i, version: $v) { ${F.realm} } }`;
    const changed = ok(await gql(update, { r: 'gql-one', i: { accessTokenLifespan: 60 }, v: 1 })).adminUpdateRealm;
    expect(changed).toMatchObject({ name: 'gql-one', accessTokenLifespan: 60, version: 2 });
    expect(changed).toEqual(camelView((await a.rest(admin, 'GET', '/realms/gql-one')).body));

    const stale = await gql(update, { r: 'gql-one', i: { name: 'gql-renamed' }, v: 1 });
    expect(codes(stale)).toEqual(['PRECONDITION_FAILED']);
    expect((await a.rest(admin, 'GET', '/realms/gql-one')).body).toMatchObject({ name: 'gql-one', version: 2 });
    // Without a version, the last writer wins.
    expect(ok(await gql(update, { r: 'gql-one', i: { enabled: false } })).adminUpdateRealm).toMatchObject({ enabled: false, version: 3 });
    const bad = await gql(update, { r: 'gql-one', i: { accessTokenLifespan: 0 } });
    expect(codes(bad)).toEqual(['BAD_USER_INPUT']);
  });

  it('become the default and get new signing keys', async () => {
    const set = `mutation ($r: ID!) { adminSetDefaultRealm(realm: $r) { realm default } }`;
    const two = ok(await gql(`{ adminRealm(realm: "gql-two") { realm } }`)).adminRealm.realm;
    expect(ok(await gql(set, { r: 'gql-two' })).adminSetDefaultRealm).toEqual({ realm: two, default: true });
    expect(ok(await gql(`{ adminRealm(realm: ${JSON.stringify(realm)}) { default } }`)).adminRealm.default).toBe(false);
    expect(ok(await gql(set, { r: realm })).adminSetDefaultRealm).toEqual({ realm, default: true });

    const rotated = ok(await gql(`mutation { adminRotateRealmKey(realm: "gql-two") { realm kid keys } }`)).adminRotateRealmKey;
    expect(rotated).toMatchObject({ realm: two, keys: 2 });
    expect(rotated.kid).toEqual(expect.any(String));
  });
});

describe('clients', () => {
  const create = `mutation ($r: ID!, $i: AdminCreateClientInput!) { adminCreateClient(realm: $r, input: $i) { ${F.client} } }`;
  const secrets: string[] = [];

  it("a confidential client's secret is in its creation's answer only; reads and lists equal REST's", async () => {
    const made = ok(
      await gql(create, { r: realm, i: { clientId: 'gql-app', roles: ['search:read'], redirectUris: ['https://app.example/cb'] } }),
    ).adminCreateClient;
    expect(made).toMatchObject({ clientId: 'gql-app', realm, tenantId: realm, public: false, roles: ['search:read'], version: 1 });
    expect(made.clientSecret).toMatch(/^.{16,}$/);
    secrets.push(made.clientSecret);
    const rest = (await a.rest(admin, 'GET', `/realms/${realm}/clients/gql-app`)).body;
    expect(rest.client_secret).toBeUndefined();
    expect({ ...made, clientSecret: null }).toEqual({ ...camelView(rest), clientSecret: null });

    const read = ok(await gql(`{ adminClient(realm: ${JSON.stringify(realm)}, clientId: "gql-app") { ${F.client} } }`)).adminClient;
    expect(read.clientSecret).toBeNull();
    expect(read).toEqual(asGraph(rest, F.client));

    const pub = ok(
      await gql(create, { r: realm, i: { clientId: 'gql-spa', public: true, redirectUris: ['https://spa.example/cb'] } }),
    ).adminCreateClient;
    expect(pub).toMatchObject({ public: true, clientSecret: null });

    const list = ok(
      await gql(
        `{ adminClients(realm: ${JSON.stringify(realm)}, q: "GQL-", sort: "-clientId") { items { ${F.client} } nextCursor total } }`,
      ),
    ).adminClients;
    const restList = (await a.rest(admin, 'GET', `/realms/${realm}/clients?q=GQL-&sort=-client_id`)).body;
    expect(list.items).toEqual(restList.items.map((c: Record<string, unknown>) => asGraph(c, F.client)));
    expect(list.items.map((c: { clientId: string; clientSecret: unknown }) => [c.clientId, c.clientSecret])).toEqual([
      ['gql-spa', null],
      ['gql-app', null],
    ]);
    expect(list).toMatchObject({ nextCursor: null, total: 2 });
    const publicOnly = ok(await gql(`{ adminClients(realm: ${JSON.stringify(realm)}, public: true, q: "gql") { items { clientId } } }`));
    expect(publicOnly.adminClients.items).toEqual([{ clientId: 'gql-spa' }]);
  });

  it('a regenerated secret is in that answer only, and differs', async () => {
    const again = ok(
      await gql(`mutation { adminRegenerateClientSecret(realm: ${JSON.stringify(realm)}, clientId: "gql-app") { ${F.client} } }`),
    ).adminRegenerateClientSecret;
    expect(again.clientSecret).toMatch(/^.{16,}$/);
    expect(again.clientSecret).not.toBe(secrets[0]);
    secrets.push(again.clientSecret);
    // The new secret works; the old one no longer does.
    const grant = (secret: string) =>
      fetch(`${a.p.url}/auth/api/v1/oauth/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({ realm, client_id: 'gql-app', client_secret: secret }),
      }).then((r) => r.status);
    expect(await grant(again.clientSecret)).toBe(200);
    expect(await grant(secrets[0])).toBe(401);
  });

  it('are updated at the version read; stale is PRECONDITION_FAILED', async () => {
    const { version } = ok(await gql(`{ adminClient(realm: ${JSON.stringify(realm)}, clientId: "gql-app") { version } }`)).adminClient;
    const update = `mutation ($v: Int, $i: AdminUpdateClientInput!) {
      adminUpdateClient(realm: ${JSON.stringify(realm)}, clientId: "gql-app", input: $i, version: $v) { ${F.client} } }`;
    const changed = ok(await gql(update, { v: version, i: { webOrigins: ['https://app.example'], scopes: ['openid'] } })).adminUpdateClient;
    expect(changed).toMatchObject({ webOrigins: ['https://app.example'], scopes: ['openid'], version: version + 1, clientSecret: null });
    expect(changed).toEqual(asGraph((await a.rest(admin, 'GET', `/realms/${realm}/clients/gql-app`)).body, F.client));
    expect(codes(await gql(update, { v: version, i: { enabled: false } }))).toEqual(['PRECONDITION_FAILED']);
    expect(ok(await gql(`{ adminClient(realm: ${JSON.stringify(realm)}, clientId: "gql-app") { enabled } }`)).adminClient.enabled).toBe(
      true,
    );
    expect(codes(await gql(`{ adminClient(realm: ${JSON.stringify(realm)}, clientId: "nobody") { clientId } }`))).toEqual(['NOT_FOUND']);
  });

  it('their secrets are in no audit event', async () => {
    const events = await gql(`{ auditEvents(type: "client.", order: "asc") { items { type outcome target { id } details } nextCursor } }`);
    expect(ok(events).auditEvents.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'client.create', outcome: 'success', target: { id: 'gql-app' } }),
        expect.objectContaining({ type: 'client.secret', outcome: 'success', target: { id: 'gql-app' } }),
      ]),
    );
    for (const s of secrets) expect(events.raw).not.toContain(s);
  });
});

describe('users and sessions', () => {
  const password = 'a long enough password';
  const user = (name: string) => `{ adminUser(realm: ${JSON.stringify(realm)}, username: "${name}") { ${F.user} } }`;

  it('are created, read and listed as REST shows them; never a password', async () => {
    const made = ok(
      await gql(`mutation ($i: AdminCreateUserInput!) { adminCreateUser(realm: ${JSON.stringify(realm)}, input: $i) { ${F.user} } }`, {
        i: { username: 'gql-ann', password, email: 'ann@example.com', roles: ['search:read'] },
      }),
    );
    expect(made.adminCreateUser).toMatchObject({
      username: 'gql-ann',
      realm,
      tenantId: realm,
      email: 'ann@example.com',
      locked: false,
      version: 1,
    });
    const rest = (await a.rest(admin, 'GET', `/realms/${realm}/users/gql-ann`)).body;
    expect(made.adminCreateUser).toEqual(asGraph(rest, F.user));
    expect(ok(await gql(user('gql-ann'))).adminUser).toEqual(asGraph(rest, F.user));

    const list = ok(
      await gql(`{ adminUsers(realm: ${JSON.stringify(realm)}, q: "gql", role: "search:read") { items { ${F.user} } nextCursor total } }`),
    );
    const restList = (await a.rest(admin, 'GET', `/realms/${realm}/users?q=gql&role=search:read`)).body;
    expect(list.adminUsers.items).toEqual(restList.items.map((u: Record<string, unknown>) => asGraph(u, F.user)));
    expect(list.adminUsers).toMatchObject({ total: 1, nextCursor: null });
    const raw = (await gql(`{ adminUsers(realm: ${JSON.stringify(realm)}) { items { ${F.user} } } }`)).raw;
    expect(raw).not.toContain(password);
    expect(raw).not.toContain(a.boot.admin_password);
  });

  it('are updated at the version read (null clears an email); stale is PRECONDITION_FAILED', async () => {
    const update = `mutation ($v: Int, $i: AdminUpdateUserInput!) {
      adminUpdateUser(realm: ${JSON.stringify(realm)}, username: "gql-ann", input: $i, version: $v) { ${F.user} } }`;
    const changed = ok(await gql(update, { v: 1, i: { email: null, roles: ['search:read', 'search:write'] } })).adminUpdateUser;
    expect(changed).toMatchObject({ email: null, roles: ['search:read', 'search:write'], version: 2 });
    expect(changed).toEqual(asGraph((await a.rest(admin, 'GET', `/realms/${realm}/users/gql-ann`)).body, F.user));
    expect(codes(await gql(update, { v: 1, i: { enabled: false } }))).toEqual(['PRECONDITION_FAILED']);
    const bad = await gql(update, { i: { roles: ['not a role'] } });
    expect(codes(bad)).toEqual(['BAD_USER_INPUT']);
    expect(ok(await gql(user('gql-ann'))).adminUser).toMatchObject({ enabled: true, version: 2 });
  });

  it("a new password ends the user's sessions; a lock is lifted; a logout ends every session", async () => {
    await a.login(realm, 'gql-ann', password);
    const next = 'another long password';
    const set = ok(
      await gql(
        `mutation ($p: String!) { adminSetUserPassword(realm: ${JSON.stringify(realm)}, username: "gql-ann", password: $p) { ${F.user} } }`,
        {
          p: next,
        },
      ),
    ).adminSetUserPassword;
    expect(set).toMatchObject({ username: 'gql-ann', sessionsEnded: 1 });
    await expect(a.login(realm, 'gql-ann', password)).rejects.toThrow(/401/);

    for (let i = 0; i < 3; i++) await a.login(realm, 'gql-ann', `wrong ${i}`).catch(() => undefined);
    expect(ok(await gql(user('gql-ann'))).adminUser.locked).toBe(true);
    await expect(a.login(realm, 'gql-ann', next)).rejects.toThrow();
    const unlocked = ok(await gql(`mutation { adminUnlockUser(realm: ${JSON.stringify(realm)}, username: "gql-ann") { ${F.user} } }`));
    expect(unlocked.adminUnlockUser).toMatchObject({ locked: false, sessionsEnded: null });

    await a.login(realm, 'gql-ann', next);
    await a.login(realm, 'gql-ann', next);
    const out = ok(
      await gql(`mutation { adminLogoutUser(realm: ${JSON.stringify(realm)}, username: "gql-ann") { realm username sessionsEnded } }`),
    );
    expect(out.adminLogoutUser).toEqual({ realm, username: 'gql-ann', sessionsEnded: 2 });
  });

  it('single sign-on sessions are listed as REST lists them, and ended one by one', async () => {
    await browserSignIn(a.p, realm, 'gql-spa', 'https://spa.example/cb', { username: 'gql-ann', password: 'another long password' });
    const list = `{ adminSessions(realm: ${JSON.stringify(realm)}, username: "gql-ann") { items { ${F.session} } nextCursor total } }`;
    const open = ok(await gql(list)).adminSessions;
    expect(open).toMatchObject({ total: 1, nextCursor: null, items: [{ realm, username: 'gql-ann' }] });
    const rest = (await a.rest(admin, 'GET', `/realms/${realm}/sessions?username=gql-ann`)).body;
    expect(open.items).toEqual(rest.items.map(camelView));

    const end = `mutation ($id: ID!) { adminEndSession(realm: ${JSON.stringify(realm)}, id: $id) { realm id sessionsEnded } }`;
    const ended = ok(await gql(end, { id: open.items[0].id })).adminEndSession;
    expect(ended).toMatchObject({ realm, id: open.items[0].id });
    expect(ok(await gql(list)).adminSessions).toEqual({ items: [], nextCursor: null, total: 0 });
    expect(codes(await gql(end, { id: open.items[0].id }))).toEqual(['NOT_FOUND']);
  });
});

describe('auditEvents', () => {
  const AUDIT = 'id time type outcome actor { kind realm id name } realm tenant target { kind id } address service reason details';

  it('are the events GET /audit-events reads, a page at a time, without a secret', async () => {
    const q = `query ($after: String) {
      auditEvents(realm: ${JSON.stringify(realm)}, type: "user.", order: "asc", first: 2, after: $after) { items { ${AUDIT} } nextCursor } }`;
    const pages: Record<string, unknown>[] = [];
    let after: string | null = null;
    let raw = '';
    do {
      const answer = await gql(q, { after });
      raw += answer.raw;
      const page = ok(answer).auditEvents as { items: Record<string, unknown>[]; nextCursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(2);
      pages.push(...page.items);
      after = page.nextCursor;
    } while (after);
    const rest = (await a.rest(admin, 'GET', `/audit-events?realm=${realm}&type=user.&order=asc&limit=200`)).body;
    expect(pages.map(present)).toEqual(rest.items);
    expect(pages[0]).toMatchObject({
      type: 'user.create',
      outcome: 'success',
      actor: { kind: 'user', name: a.boot.admin_username },
      service: 'token',
    });
    expect(pages.map((e) => `${String(e.type)} ${String(e.outcome)}`)).toEqual(
      expect.arrayContaining([
        'user.update success',
        'user.update failure',
        'user.password success',
        'user.unlock success',
        'user.logout success',
      ]),
    );
    const stale = pages.find((e) => e.type === 'user.update' && e.outcome === 'failure');
    expect(stale).toMatchObject({ target: { kind: 'user', id: 'gql-ann' }, reason: expect.any(String) });
    for (const secret of ['a long enough password', 'another long password', a.boot.admin_password]) expect(raw).not.toContain(secret);
  });

  it('refuses a time it cannot read, and finds nothing outside the range asked', async () => {
    expect(codes(await gql(`{ auditEvents(from: "yesterday") { nextCursor } }`))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await gql(`{ auditEvents(outcome: "maybe") { nextCursor } }`))).toEqual(['BAD_USER_INPUT']);
    const later = ok(await gql(`{ auditEvents(from: "2999-01-01T00:00:00Z") { items { id } nextCursor } }`)).auditEvents;
    expect(later).toEqual({ items: [], nextCursor: null });
  });
});
