import { adminPlatform, browserTokens, codes, ok, type AdminPlatform } from './admin-graphql-fixture';

const PASSWORD = 'a long enough password';
const ANN = { username: 'ann', password: PASSWORD };
const BOB = { username: 'bob', password: PASSWORD };

const LIST = `query Mine($first: Int, $after: String) {
  viewer { username sessions(first: $first, after: $after) { items { id authTime createdAt expiresAt current } nextCursor total } }
}`;
const END = 'mutation End($id: ID!) { endViewerSession(id: $id) }';
const END_ALL = 'mutation { endViewerSessions }';

/**
 * A person's own single sign-on sessions over real HTTP, on the whole platform: the token
 * service's account routes (`/auth/api/v1/account/sessions`) and the graph's `Viewer.sessions`,
 * `endViewerSession`, `endViewerSessions`. The same cases on both faces: the person's own sessions
 * listed with this browser's marked; one ended (its tokens refused at once); another person's
 * session and an unknown id the same 404 / NOT_FOUND; a client's own token 403 / FORBIDDEN; no
 * token 401 / UNAUTHENTICATED; sign out everywhere; every end in the audit trail.
 */
describe("a person's own sessions (REST and the graph)", () => {
  let a: AdminPlatform;
  let realm: string;
  let admin: string;
  let clientToken: string;

  /** The account routes as `token` (none: no Authorization). */
  const account = async (token: string | undefined, method: string, path = '') => {
    const res = await fetch(`${a.p.url}/auth/api/v1/account/sessions${path}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const signIn = (who: { username: string; password: string }) => browserTokens(a.p, realm, who);
  const auditOf = async (type: string) =>
    (await a.rest(admin, 'GET', `/audit-events?limit=200&type=${type}&actor=ann`)).body.items as Record<string, any>[];

  beforeAll(async () => {
    a = await adminPlatform();
    realm = a.boot.realm;
    admin = await a.login(realm, a.boot.admin_username, a.boot.admin_password);
    for (const who of [ANN, BOB])
      expect((await a.rest(admin, 'POST', `/realms/${realm}/users`, { ...who, roles: ['search:read'] })).status).toBe(201);
    const client = await fetch(`${a.p.url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ realm, client_id: a.boot.client_id, client_secret: a.boot.client_secret }),
    });
    clientToken = ((await client.json()) as { access_token: string }).access_token;
  }, 60_000);
  afterAll(() => a?.stop());

  it('REST: lists, ends one (its tokens refused at once), refuses what is not the caller’s, signs out everywhere; each end audited', async () => {
    const here = await signIn(ANN);
    const there = await signIn(ANN);
    const bobs = await signIn(BOB);

    const mine = await account(here.access_token, 'GET');
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(mine.body).toMatchObject({ total: 2, next_cursor: null });
    expect(mine.body.items.map((s: any) => s.current).sort()).toEqual([false, true]);
    const current = mine.body.items.find((s: any) => s.current);
    expect(current).toEqual({
      id: expect.any(String),
      realm,
      username: 'ann',
      auth_time: expect.any(String),
      created_at: expect.any(String),
      expires_at: expect.any(String),
      current: true,
    });
    const other = mine.body.items.find((s: any) => !s.current).id as string;
    const page = await account(here.access_token, 'GET', '?limit=1');
    expect(page.body.items).toHaveLength(1);
    const rest = await account(here.access_token, 'GET', `?limit=1&cursor=${page.body.next_cursor}`);
    expect(rest.body).toMatchObject({ next_cursor: null, total: 2 });
    expect([page.body.items[0].id, rest.body.items[0].id].sort()).toEqual(mine.body.items.map((s: any) => s.id).sort());
    expect((await account(here.access_token, 'GET', '?limit=0')).status).toBe(422);

    // Another person's session, and an unknown id: the same 404; nothing of bob's ends.
    const bobSession = (await account(bobs.access_token, 'GET')).body.items[0].id as string;
    const theirs = await account(here.access_token, 'DELETE', `/${bobSession}`);
    expect(theirs).toMatchObject({ status: 404, body: { detail: `no open session '${bobSession}' of yours` } });
    expect((await account(here.access_token, 'DELETE', '/nope')).body).toEqual({ detail: "no open session 'nope' of yours" });
    expect((await account(bobs.access_token, 'GET')).status).toBe(200);

    const ended = await account(here.access_token, 'DELETE', `/${other}`);
    expect(ended).toMatchObject({ status: 200, body: { realm, id: other, sessions_ended: 1 } });
    // That browser's tokens are refused at once, its refresh token too.
    expect((await account(there.access_token, 'GET')).status).toBe(401);
    const refreshed = await fetch(`${a.p.url}/auth/api/v1/realms/${realm}/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: there.refresh_token, client_id: 'platform-console' }),
    });
    expect(refreshed.status).toBe(400);
    expect((await account(here.access_token, 'DELETE', `/${other}`)).status).toBe(404);
    expect((await account(here.access_token, 'GET')).body.items.map((s: any) => s.current)).toEqual([true]);

    const everywhere = await account(here.access_token, 'DELETE');
    expect(everywhere.status).toBe(200);
    // This browser's token session was the one left.
    expect(everywhere.body).toEqual({ realm, username: 'ann', sessions_ended: 1 });
    expect((await account(here.access_token, 'GET')).status).toBe(401);
    expect((await account(bobs.access_token, 'GET')).body.total).toBe(1);

    const ends = await auditOf('session.end');
    expect(ends.map((e) => `${e.outcome} ${e.target.id}`)).toEqual(
      expect.arrayContaining([`success ${other}`, `failure ${bobSession}`, 'failure nope']),
    );
    expect(ends.find((e) => e.outcome === 'success')).toMatchObject({
      actor: { kind: 'user', realm, name: 'ann' },
      realm,
      service: 'token',
      details: { via: 'account', sessions_ended: 1 },
    });
    expect((await auditOf('user.logout'))[0]).toMatchObject({
      outcome: 'success',
      target: { kind: 'user', id: 'ann' },
      details: { via: 'account' },
    });
    const trail = JSON.stringify(await a.rest(admin, 'GET', '/audit-events?limit=200'));
    for (const secret of [PASSWORD, here.access_token, there.refresh_token]) expect(trail).not.toContain(secret);
  });

  it("REST: a client's own token is 403, no token or a bad one 401, a token for another service 401", async () => {
    const client = await account(clientToken, 'GET');
    expect(client.status).toBe(403);
    expect(client.body.detail).toContain('client credentials');
    expect((await account(clientToken, 'DELETE')).status).toBe(403);
    expect((await account(clientToken, 'DELETE', '/x')).status).toBe(403);
    const none = await account(undefined, 'GET');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    for (const method of ['DELETE', 'GET']) expect((await account('garbage', method)).status).toBe(401);
    const narrowed = await fetch(`${a.p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ realm, username: 'bob', password: PASSWORD, resource: 'search' }),
    });
    const search = await account(((await narrowed.json()) as { access_token: string }).access_token, 'GET');
    expect(search).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('the graph: the same cases, with the same answers and refusals', async () => {
    const here = await signIn(ANN);
    const there = await signIn(ANN);
    const bobs = await signIn(BOB);

    const mine = ok(await a.gql(here.access_token, LIST)).viewer;
    expect(mine.username).toBe('ann');
    expect(mine.sessions.total).toBe(2);
    expect(mine.sessions.items.map((s: any) => s.current).sort()).toEqual([false, true]);
    // The same sessions as REST reads them.
    const rest = (await account(here.access_token, 'GET')).body.items;
    expect(mine.sessions.items).toEqual(
      rest.map((s: any) => ({ id: s.id, authTime: s.auth_time, createdAt: s.created_at, expiresAt: s.expires_at, current: s.current })),
    );
    const first = ok(await a.gql(here.access_token, LIST, { first: 1 })).viewer.sessions;
    expect(first.items).toHaveLength(1);
    const next = ok(await a.gql(here.access_token, LIST, { first: 1, after: first.nextCursor })).viewer.sessions;
    expect(next).toMatchObject({ nextCursor: null, total: 2 });
    expect(codes(await a.gql(here.access_token, LIST, { first: 0 }))).toEqual(['BAD_USER_INPUT']);

    const bobSession = ok(await a.gql(bobs.access_token, LIST)).viewer.sessions.items[0].id;
    const refused = await a.gql(here.access_token, END, { id: bobSession });
    expect(codes(refused)).toEqual(['NOT_FOUND']);
    expect(refused.errors![0].message).toBe(`no open session '${bobSession}' of yours`);
    expect(codes(await a.gql(here.access_token, END, { id: 'nope' }))).toEqual(['NOT_FOUND']);

    const other = mine.sessions.items.find((s: any) => !s.current).id;
    expect(ok(await a.gql(here.access_token, END, { id: other })).endViewerSession).toBe(1);
    // The console reads this message as "your session was ended elsewhere" (console/src/graphql/client.ts).
    const gone = await a.gql(there.access_token, LIST);
    expect(codes(gone)).toEqual(['UNAUTHENTICATED']);
    expect(gone.errors![0].message).toBe('Invalid token: revoked');
    expect(ok(await a.gql(here.access_token, LIST)).viewer.sessions.items.map((s: any) => s.current)).toEqual([true]);

    const client = await a.gql(clientToken, LIST);
    expect(codes(client)).toEqual(['FORBIDDEN']);
    expect(codes(await a.gql(clientToken, END_ALL))).toEqual(['FORBIDDEN']);
    expect(codes(await a.gql(undefined, END_ALL))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await a.gql(undefined, END, { id: other }))).toEqual(['UNAUTHENTICATED']);

    const all = ok(await a.gql(here.access_token, END_ALL)).endViewerSessions;
    expect(all).toBeGreaterThanOrEqual(1);
    expect(codes(await a.gql(here.access_token, LIST))).toEqual(['UNAUTHENTICATED']);
    expect(ok(await a.gql(bobs.access_token, LIST)).viewer.sessions.total).toBeGreaterThanOrEqual(1);

    const ends = await auditOf('session.end');
    expect(ends.map((e) => `${e.outcome} ${e.target.id}`)).toEqual(expect.arrayContaining([`success ${other}`, `failure ${bobSession}`]));
    expect((await auditOf('user.logout')).filter((e) => e.details.via === 'account').length).toBeGreaterThanOrEqual(2);
  });
});
