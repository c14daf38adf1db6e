import { adminPlatform, codes, ok, type AdminPlatform } from './admin-graphql-fixture';

/**
 * Who may use the token subgraph's admin fields, through the gateway's /graphql: a realm
 * administrator reaches no other realm by any field (NOT_FOUND, as if it did not exist) and cannot
 * raise anyone to `platform-admin` or touch a platform administrator (FORBIDDEN); a plain user or
 * client is FORBIDDEN every field, and a caller without a token is UNAUTHENTICATED; a hostile
 * document is refused before any resolver runs.
 */
jest.setTimeout(60_000);

const PASSWORD = 'a long enough password';
let a: AdminPlatform;
let platformAdmin: string;
let realmAdmin: string;
let plainUser: string;
let home: string;
let own: string;
const lit = (s: string) => JSON.stringify(s);

beforeAll(async () => {
  a = await adminPlatform();
  home = a.boot.realm;
  platformAdmin = await a.login(home, a.boot.admin_username, a.boot.admin_password);
  const setup = ok(
    await a.gql(
      platformAdmin,
      `mutation ($ra: AdminCreateUserInput!, $bob: AdminCreateUserInput!, $carol: AdminCreateUserInput!) {
        made: adminCreateRealm(input: { name: "acme" }) { realm }
        ra: adminCreateUser(realm: "acme", input: $ra) { id }
        bob: adminCreateUser(realm: "acme", input: $bob) { id }
        carol: adminCreateUser(realm: ${lit(home)}, input: $carol) { id }
        client: adminCreateClient(realm: "acme", input: { clientId: "acme-app" }) { clientId }
      }`,
      {
        ra: { username: 'ra', password: PASSWORD, roles: ['realm-admin'] },
        bob: { username: 'bob', password: PASSWORD, roles: ['search:read'] },
        carol: { username: 'carol', password: PASSWORD },
      },
    ),
  );
  own = setup.made.realm;
  realmAdmin = await a.login(own, 'ra', PASSWORD);
  plainUser = await a.login(home, a.boot.username, a.boot.password);
}, 90_000);
afterAll(() => a?.stop());

/** One field of every kind, each in a document of its own, for a caller refused them all. */
const everyField = (realm: string) => [
  `{ adminRealms { total } }`,
  `{ adminRealm(realm: ${lit(realm)}) { realm } }`,
  `{ adminClients(realm: ${lit(realm)}) { total } }`,
  `{ adminClient(realm: ${lit(realm)}, clientId: "platform-login") { clientId } }`,
  `{ adminUsers(realm: ${lit(realm)}) { total } }`,
  `{ adminUser(realm: ${lit(realm)}, username: "carol") { id } }`,
  `{ adminSessions(realm: ${lit(realm)}) { total } }`,
  `{ auditEvents { nextCursor } }`,
  `mutation { adminCreateRealm(input: { name: "nope" }) { realm } }`,
  `mutation { adminUpdateRealm(realm: ${lit(realm)}, input: { enabled: false }) { realm } }`,
  `mutation { adminSetDefaultRealm(realm: ${lit(realm)}) { realm } }`,
  `mutation { adminRotateRealmKey(realm: ${lit(realm)}) { kid } }`,
  `mutation { adminCreateClient(realm: ${lit(realm)}, input: { clientId: "nope" }) { clientSecret } }`,
  `mutation { adminUpdateClient(realm: ${lit(realm)}, clientId: "platform-login", input: { enabled: false }) { clientId } }`,
  `mutation { adminRegenerateClientSecret(realm: ${lit(realm)}, clientId: "platform-login") { clientSecret } }`,
  `mutation { adminCreateUser(realm: ${lit(realm)}, input: { username: "nope", password: ${lit(PASSWORD)} }) { id } }`,
  `mutation { adminUpdateUser(realm: ${lit(realm)}, username: "carol", input: { enabled: false }) { id } }`,
  `mutation { adminSetUserPassword(realm: ${lit(realm)}, username: "carol", password: "another long one") { id } }`,
  `mutation { adminUnlockUser(realm: ${lit(realm)}, username: "carol") { id } }`,
  `mutation { adminLogoutUser(realm: ${lit(realm)}, username: "carol") { sessionsEnded } }`,
  `mutation { adminEndSession(realm: ${lit(realm)}, id: "some-session") { sessionsEnded } }`,
];

describe('a plain user, a client, nobody', () => {
  it('a user without an administrator role is FORBIDDEN every field, and nothing changed', async () => {
    for (const doc of everyField(home)) {
      const answer = await a.gql(plainUser, doc);
      expect([doc, codes(answer)]).toEqual([doc, ['FORBIDDEN']]);
      expect(answer.data ?? null).toBeNull();
    }
    const carol = ok(await a.gql(platformAdmin, `{ adminUser(realm: ${lit(home)}, username: "carol") { enabled version } }`)).adminUser;
    expect(carol).toEqual({ enabled: true, version: 1 });
  });

  it("a client's token without an administrator role is FORBIDDEN; no token is UNAUTHENTICATED", async () => {
    const grant = await fetch(`${a.p.url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ realm: home, client_id: a.boot.client_id, client_secret: a.boot.client_secret }),
    });
    const client = ((await grant.json()) as { access_token: string }).access_token;
    expect(codes(await a.gql(client, `{ adminUsers(realm: ${lit(home)}) { total } }`))).toEqual(['FORBIDDEN']);
    expect(codes(await a.gql(undefined, `{ adminUsers(realm: ${lit(home)}) { total } }`))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await a.gql('not-a-token', `{ auditEvents { nextCursor } }`))).toEqual(['UNAUTHENTICATED']);
  });
});

describe('a realm administrator', () => {
  it('reaches no other realm by any field: NOT_FOUND, or FORBIDDEN where only platform administrators may act', async () => {
    const platformOnly = ['adminCreateRealm', 'adminUpdateRealm', 'adminSetDefaultRealm', 'adminRotateRealmKey'];
    for (const doc of everyField(home)) {
      if (doc.includes('adminRealms') || doc.includes('auditEvents')) continue;
      const answer = await a.gql(realmAdmin, doc);
      // A platform-only change in another realm may say either: neither discloses the realm.
      const expected = platformOnly.some((f) => doc.includes(f)) ? expect.stringMatching(/^(NOT_FOUND|FORBIDDEN)$/) : 'NOT_FOUND';
      expect([doc, codes(answer)]).toEqual([doc, [expected]]);
    }
    // Reached by name as well as by id.
    expect(codes(await a.gql(realmAdmin, `{ adminUsers(realm: "default") { total } }`))).toEqual(['NOT_FOUND']);
    const carol = ok(await a.gql(platformAdmin, `{ adminUser(realm: ${lit(home)}, username: "carol") { enabled version } }`)).adminUser;
    expect(carol).toEqual({ enabled: true, version: 1 });
  });

  it('lists only its own realm, and administers its users and clients', async () => {
    const realms = ok(await a.gql(realmAdmin, `{ adminRealms { items { realm name } total } }`)).adminRealms;
    expect(realms).toEqual({ items: [{ realm: own, name: 'acme' }], total: 1 });
    const users = ok(await a.gql(realmAdmin, `{ adminUsers(realm: "acme", sort: "username") { items { username } total } }`)).adminUsers;
    expect(users).toEqual({ items: [{ username: 'bob' }, { username: 'ra' }], total: 2 });
    const made = ok(
      await a.gql(
        realmAdmin,
        `mutation { adminCreateUser(realm: "acme", input: { username: "dan", password: ${lit(PASSWORD)}, roles: ["search:read"] }) { realm tenantId } }`,
      ),
    ).adminCreateUser;
    expect(made).toEqual({ realm: own, tenantId: own });
    const client = ok(
      await a.gql(realmAdmin, `mutation { adminRegenerateClientSecret(realm: "acme", clientId: "acme-app") { clientSecret } }`),
    );
    expect(client.adminRegenerateClientSecret.clientSecret).toEqual(expect.any(String));
  });

  it('cannot grant platform-admin, assign another tenant, or change its own realm', async () => {
    const refused = [
      `mutation { adminCreateUser(realm: "acme", input: { username: "eve", password: ${lit(PASSWORD)}, roles: ["platform-admin"] }) { id } }`,
      `mutation { adminUpdateUser(realm: "acme", username: "ra", input: { roles: ["realm-admin", "platform-admin"] }) { id } }`,
      `mutation { adminUpdateUser(realm: "acme", username: "bob", input: { roles: ["platform-admin"] }, version: 1) { id } }`,
      `mutation { adminCreateClient(realm: "acme", input: { clientId: "root", roles: ["platform-admin"] }) { clientSecret } }`,
      `mutation { adminUpdateClient(realm: "acme", clientId: "acme-app", input: { roles: ["platform-admin"] }) { clientId } }`,
      `mutation { adminCreateUser(realm: "acme", input: { username: "eve", password: ${lit(PASSWORD)}, tenantId: ${lit(home)} }) { id } }`,
      `mutation { adminUpdateUser(realm: "acme", username: "bob", input: { tenantId: "someone-else" }) { id } }`,
      `mutation { adminUpdateRealm(realm: "acme", input: { accessTokenLifespan: 86400 }) { realm } }`,
      `mutation { adminRotateRealmKey(realm: "acme") { kid } }`,
      `mutation { adminSetDefaultRealm(realm: "acme") { realm } }`,
      `mutation { adminCreateRealm(input: { name: "mine" }) { realm } }`,
    ];
    for (const doc of refused) expect([doc, codes(await a.gql(realmAdmin, doc))]).toEqual([doc, ['FORBIDDEN']]);
    const bob = ok(await a.gql(platformAdmin, `{ adminUser(realm: "acme", username: "bob") { roles tenantId version } }`)).adminUser;
    expect(bob).toEqual({ roles: ['search:read'], tenantId: own, version: 1 });
    const users = ok(await a.gql(platformAdmin, `{ adminUsers(realm: "acme", role: "platform-admin") { total } }`)).adminUsers;
    expect(users.total).toBe(0);
  });

  it("touches no platform administrator in its realm, nor that administrator's sessions", async () => {
    ok(
      await a.gql(
        platformAdmin,
        `mutation { adminCreateUser(realm: "acme", input: { username: "root", password: ${lit(PASSWORD)}, roles: ["platform-admin"] }) { id } }`,
      ),
    );
    const touch = [
      `mutation { adminSetUserPassword(realm: "acme", username: "root", password: "taken over now") { id } }`,
      `mutation { adminUpdateUser(realm: "acme", username: "root", input: { enabled: false }) { id } }`,
      `mutation { adminUnlockUser(realm: "acme", username: "root") { id } }`,
      `mutation { adminLogoutUser(realm: "acme", username: "root") { sessionsEnded } }`,
    ];
    for (const doc of touch) expect([doc, codes(await a.gql(realmAdmin, doc))]).toEqual([doc, ['FORBIDDEN']]);
    await a.login(own, 'root', PASSWORD);
  });

  it('reads the audit events of its own realm only', async () => {
    const mine = ok(await a.gql(realmAdmin, `{ auditEvents(first: 200) { items { realm type actor { name } } } }`)).auditEvents.items;
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine.map((e: { realm: string }) => e.realm))).toEqual(new Set([own]));
    expect(mine).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'user.create', actor: { name: 'ra' } })]));
    for (const q of [`realm: ${lit(home)}`, `tenant: ${lit(home)}`]) {
      const other = ok(await a.gql(realmAdmin, `{ auditEvents(${q}) { items { id } nextCursor } }`)).auditEvents;
      expect(other).toEqual({ items: [], nextCursor: null });
    }
    const all = ok(await a.gql(platformAdmin, `{ auditEvents(first: 200) { items { realm } } }`)).auditEvents.items;
    expect(all.some((e: { realm: string | null }) => e.realm === home)).toBe(true);
  });
});

describe('hostile documents', () => {
  it('a hundred aliases of adminUsers are refused by the document limits before any resolver runs', async () => {
    const before = ok(await a.gql(platformAdmin, `{ auditEvents(first: 1) { items { id } } }`)).auditEvents.items;
    const aliases = Array.from(
      { length: 100 },
      (_, i) => `u${i}: adminUsers(realm: ${lit(home)}, first: 200) { items { id username roles } }`,
    );
    const answer = await a.gql(platformAdmin, `{ ${aliases.join('\n')} }`);
    expect(answer.status).toBe(400);
    expect(codes(answer)).toEqual(['TOO_MANY_ALIASES']);
    const mutations = Array.from(
      { length: 6 },
      (_, i) => `m${i}: adminLogoutUser(realm: ${lit(home)}, username: "carol") { sessionsEnded }`,
    );
    const writes = await a.gql(platformAdmin, `mutation { ${mutations.join('\n')} }`);
    expect(codes(writes)).toEqual(['TOO_MANY_MUTATIONS']);
    expect(ok(await a.gql(platformAdmin, `{ auditEvents(first: 1) { items { id } } }`)).auditEvents.items).toEqual(before);
  });

  it('a page larger than 200 is BAD_USER_INPUT', async () => {
    const answer = await a.gql(platformAdmin, `{ adminUsers(realm: ${lit(home)}, first: 100000) { total } }`);
    expect(codes(answer)).toEqual(['BAD_USER_INPUT']);
    expect(codes(await a.gql(platformAdmin, `{ adminUsers(realm: ${lit(home)}, after: "forged") { total } }`))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await a.gql(platformAdmin, `{ adminUsers(realm: ${lit(home)}, sort: "password") { total } }`))).toEqual([
      'BAD_USER_INPUT',
    ]);
  });
});
