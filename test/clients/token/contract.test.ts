import type { Server } from 'node:http';
import { tokenClient } from '../../../clients/token';
import { PlatformError } from '../../../core/shared/errors';
import type { TokenService } from '../../../core/token/service';
import { callerOf, signInBrowser } from '../../shared/browser-sign-in';
import { tokenFixture, type TokenFixture } from '../../shared/helpers';

/**
 * The same cases against the in-process token service and against its REST client in front of a
 * served one: both faces must behave alike (ARCHITECTURE: "why this shape").
 */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => {
      if (!(err instanceof PlatformError)) throw err;
      return { kind: err.kind, code: err.code, message: err.message };
    },
  );

describe.each(['in process', 'REST client'] as const)('the token service contract (%s)', (mode) => {
  let fx: TokenFixture;
  let server: Server | undefined;
  let token: TokenService;

  beforeAll(async () => {
    fx = await tokenFixture();
    if (mode === 'in process') token = fx.core.service;
    else {
      server = fx.app.listen(0, '127.0.0.1');
      await new Promise((r) => server!.once('listening', r));
      const { port } = server.address() as { port: number };
      token = tokenClient({ baseUrl: `http://127.0.0.1:${port}` });
    }
  });
  afterAll(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    await fx.core.close();
  });

  it('issues a client token that introspects active with the client as azp', async () => {
    const t = await token.issueForClient({ realm: fx.realm, ...fx.client });
    expect(t).toMatchObject({ token_type: 'Bearer', expires_in: 300, refresh_expires_in: 1800, 'not-before-policy': 0 });
    const seen = await token.introspect({ realm: fx.realm, token: t.access_token });
    expect(seen).toMatchObject({ active: 'true', client_id: 'svc-a', azp: 'svc-a', session_state: t.session_state });
  });

  it('logs a user in, refreshes once, and ends the session on revoke', async () => {
    const t = await token.loginUser({ realm: fx.realm, ...fx.user });
    const r = await token.loginUser({ realm: fx.realm, grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect(r.session_state).toBe(t.session_state);
    expect(await failure(token.loginUser({ realm: fx.realm, grant_type: 'refresh_token', refresh_token: t.refresh_token }))).toMatchObject({
      kind: 'bad_request',
      code: 'invalid_grant',
    });
    expect(await token.introspect({ realm: fx.realm, token: r.access_token })).toEqual({ active: 'false' });
  });

  it('refuses bad credentials, unknown realms and disallowed scopes with the same errors', async () => {
    expect(await failure(token.issueForClient({ realm: fx.realm, client_id: 'svc-a', client_secret: 'nope' }))).toEqual({
      kind: 'unauthenticated',
      code: 'invalid_client',
      message: 'Authentication failed',
    });
    expect(await failure(token.loginUser({ realm: fx.realm, username: 'alice', password: 'nope' }))).toEqual({
      kind: 'unauthenticated',
      code: 'invalid_grant',
      message: 'Authentication failed',
    });
    expect(await failure(token.issueForClient({ realm: '00000000-0000-4000-8000-000000000000', ...fx.client }))).toEqual({
      kind: 'not_found',
      code: 'realm_not_found',
      message: 'Realm not found',
    });
    expect(await failure(token.issueForClient({ realm: fx.realm, ...fx.client, scopes: 'admin' }))).toMatchObject({
      kind: 'bad_request',
      code: 'invalid_scope',
    });
    expect(await failure(token.issueForClient({ realm: fx.realm, ...fx.client, grant_type: 'implicit' }))).toMatchObject({
      kind: 'bad_request',
      code: 'unsupported_grant_type',
    });
  });

  it('introspects as a client (RFC 7662) and narrows the audience to the services asked for (RFC 8707)', async () => {
    const t = await token.issueForClient({ realm: fx.realm, ...fx.client, resource: ['search'] });
    const seen = await token.introspectForClient({ realm: fx.realm, token: t.access_token, ...fx.client });
    expect(seen).toMatchObject({ active: true, aud: ['search'], client_id: 'svc-a', token_type: 'Bearer', email_verified: false });
    expect(await token.introspectForClient({ realm: fx.realm, token: 'garbage', ...fx.client })).toEqual({ active: false });
    expect(
      await failure(token.introspectForClient({ realm: fx.realm, token: t.access_token, client_id: 'svc-a', client_secret: 'nope' })),
    ).toEqual({ kind: 'unauthenticated', code: 'invalid_client', message: 'Authentication failed' });
    expect(await failure(token.issueForClient({ realm: fx.realm, ...fx.client, audience: ['billing'] }))).toMatchObject({
      kind: 'bad_request',
      code: 'invalid_target',
    });
  });

  it('describes realms (by id, absent, or `default`) and publishes their keys', async () => {
    const realm = await token.realm({ realm: fx.realm });
    expect(realm).toMatchObject({
      id: fx.realm,
      name: 'main',
      enabled: true,
      accessTokenLifespan: 300,
      refreshTokenLifespan: 1800,
      audiences: ['account', 'search'],
    });
    expect((await token.realm({})).id).toBe(fx.realm);
    expect((await token.realm({ realm: 'default' })).id).toBe(fx.realm);
    const jwks = await token.jwks({ realm: fx.realm });
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect((await token.jwks({ realm: 'default' })).keys).toEqual(jwks.keys);
    expect(await token.health()).toEqual({ msg: 'ok' });
  });

  it('refreshes with the refresh method, and grants a password token at the token endpoint', async () => {
    const t = await token.issueForClient({ realm: fx.realm, ...fx.client, grant_type: 'password', ...fx.user });
    expect(await token.introspect({ realm: fx.realm, token: t.access_token })).toMatchObject({
      active: 'true',
      username: 'alice',
      client_id: 'svc-a',
    });
    const r = await token.refresh({ realm: fx.realm, refresh_token: t.refresh_token, ...fx.client });
    expect(r.session_state).toBe(t.session_state);
    expect(await failure(token.refresh({ realm: fx.realm, refresh_token: 'garbage', ...fx.client }))).toMatchObject({
      kind: 'bad_request',
      code: 'invalid_grant',
    });
  });

  it("lists a person's own sessions, ends one (another's is not found), then all; a client's own token is refused", async () => {
    // Each sign-in is a browser of its own (the login page runs in the token service, whichever face is tried).
    const here = await signInBrowser(fx.core.service, fx.realm, fx.user);
    const there = await signInBrowser(fx.core.service, fx.realm, fx.user);
    const as = async (t: { access_token: string }) => ({ caller: await callerOf(fx.core, fx.clock)(t.access_token) });
    const ctx = await as(here);
    const mine = await token.accountSessions({}, ctx);
    expect(mine).toMatchObject({ total: 2, next_cursor: null });
    const current = mine.items.find((s) => s.current)!;
    const other = mine.items.find((s) => !s.current)!;
    expect(current).toEqual({
      id: expect.any(String),
      realm: fx.realm,
      username: 'alice',
      auth_time: expect.any(String),
      created_at: expect.any(String),
      expires_at: expect.any(String),
      current: true,
    });
    const paged = await token.accountSessions({ limit: 1 }, ctx);
    expect(paged.items).toHaveLength(1);
    expect(await token.accountSessions({ limit: 1, cursor: paged.next_cursor! }, ctx)).toMatchObject({ next_cursor: null, total: 2 });

    expect(await token.endAccountSession({ id: other.id }, ctx)).toEqual({ realm: fx.realm, id: other.id, sessions_ended: 1 });
    expect(await token.introspect({ realm: fx.realm, token: there.access_token })).toEqual({ active: 'false' });
    expect(await failure(token.endAccountSession({ id: other.id }, ctx))).toEqual({
      kind: 'not_found',
      code: undefined,
      message: `no open session '${other.id}' of yours`,
    });
    expect(await failure(token.accountSessions({ cursor: 'not a cursor' }, ctx))).toMatchObject({ kind: 'bad_request' });

    // Every session of alice's, the password grants of the cases above included.
    const all = await token.endAccountSessions({}, ctx);
    expect(all).toEqual({ realm: fx.realm, username: 'alice', sessions_ended: expect.any(Number) });
    expect(all.sessions_ended).toBeGreaterThanOrEqual(1);
    // (The fixture's edge keeps no revoked-sessions list: the ended token still reaches the core, which finds nothing open.)
    expect((await token.accountSessions({}, ctx)).total).toBe(0);
    expect(await token.introspect({ realm: fx.realm, token: here.access_token })).toEqual({ active: 'false' });

    const client = await as(await token.issueForClient({ realm: fx.realm, ...fx.client }));
    expect(await failure(token.accountSessions({}, client))).toMatchObject({
      kind: 'forbidden',
      message: expect.stringContaining('client credentials'),
    });
    expect(await failure(token.endAccountSessions({}, client))).toMatchObject({ kind: 'forbidden' });
  });

  it('answers userinfo for an active access token, and invalid_token otherwise', async () => {
    const t = await token.loginUser({ realm: fx.realm, ...fx.user });
    expect(await token.userinfo({ realm: fx.realm, authorization: `Bearer ${t.access_token}` })).toMatchObject({
      preferred_username: 'alice',
      tenant_id: 'tenant-a',
      email_verified: false,
      realm_access: { roles: ['search:read'] },
    });
    await token.revoke({ realm: fx.realm, token: t.access_token });
    expect(await failure(token.userinfo({ realm: fx.realm, authorization: `Bearer ${t.access_token}` }))).toMatchObject({
      kind: 'unauthenticated',
      code: 'invalid_token',
    });
  });
});
