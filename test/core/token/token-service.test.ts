import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { BadRequest, Conflict } from '../../../core/shared/errors';
import type { TokenCore } from '../../../core/token';
import {
  AuthenticationFailed,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  RealmNotFound,
  UnsupportedGrantType,
} from '../../../core/token/errors';
import type { TokenResponse } from '../../../core/token/service';
import { fastHasher, PUBLIC_URL, testClock, testTokenCore } from '../../shared/helpers';

const PASSWORD = 'correct horse battery';
const issuerOf = (realm: string) => `${PUBLIC_URL}/auth/api/v1/realms/${realm}`;

interface World {
  core: TokenCore;
  clock: ReturnType<typeof testClock>;
  realm: string;
  secret: string;
}

/** A fresh in-memory token core: realm `main`, client `svc-a` (search roles), user `alice` of tenant-a. */
async function world(lockout = { threshold: 3, seconds: 600 }): Promise<World> {
  const clock = testClock();
  const core = await testTokenCore(clock, { lockout });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  const [client] = await Promise.all([
    core.admin.createClient({
      realm,
      clientId: 'svc-a',
      roles: ['search:read', 'search:write'],
      scopes: ['openid', 'profile', 'email', 'search'],
    }),
    core.admin.createUser({
      realm,
      username: 'alice',
      password: PASSWORD,
      roles: ['search:read'],
      tenantId: 'tenant-a',
      email: 'alice@example.com',
    }),
  ]);
  return { core, clock, realm, secret: client.client_secret };
}

// Tests that only issue, read and revoke their own sessions share one world (scrypt and RSA are slow).
let w: World;
let clientToken: TokenResponse;
beforeAll(async () => {
  w = await world();
  clientToken = await w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-a', client_secret: w.secret });
});
afterAll(() => w.core.close());

const asClient = (extra: Record<string, string> = {}) =>
  w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-a', client_secret: w.secret, ...extra });
const asAlice = (extra: Record<string, string> = {}) =>
  w.core.service.loginUser({ realm: w.realm, username: 'alice', password: PASSWORD, ...extra });
const introspect = (token: string, realm = w.realm) => w.core.service.introspect({ realm, token });

/**
 * Why each call was refused (it fails the test if one succeeded). All are settled before anything
 * is asserted: awaiting one while another has already been refused leaves that refusal unhandled
 * for a moment, which Jest reports as a failure of the test, and which one ends first depends on
 * the machine's load.
 */
async function refusalsOf(calls: Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(calls);
  expect(settled.map((s) => s.status)).toEqual(calls.map(() => 'rejected'));
  return settled.map((s) => (s as PromiseRejectedResult).reason);
}

describe('client credentials', () => {
  it('answers the spec token response with Keycloak lifetimes', () => {
    expect(clientToken).toMatchObject({
      token_type: 'Bearer',
      expires_in: 300,
      refresh_expires_in: 1800,
      'not-before-policy': 0,
      scope: 'openid profile email search',
    });
    expect(clientToken.session_state).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('signs the access token with the realm key published in its JWKS', async () => {
    const header = decodeProtectedHeader(clientToken.access_token);
    const jwks = await w.core.service.jwks({ realm: w.realm });
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
  });

  it('puts the Keycloak claims of a service account in the access token', () => {
    const claims = decodeJwt(clientToken.access_token);
    expect(claims).toMatchObject({
      iss: issuerOf(w.realm),
      typ: 'Bearer',
      azp: 'svc-a',
      session_state: clientToken.session_state,
      sid: clientToken.session_state,
      scope: 'openid profile email search',
      realm_access: { roles: ['search:read', 'search:write'] },
      preferred_username: 'service-account-svc-a',
      email_verified: false,
      clientId: 'svc-a',
      clientHost: 'unknown',
      clientAddress: 'unknown',
    });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.iat).toBe(Math.floor(w.clock.now() / 1000));
    expect(typeof claims.jti).toBe('string');
  });

  it('gives the token the realm as tenant when the client has no tenant', () => {
    expect(decodeJwt(clientToken.access_token).tenant_id).toBe(w.realm);
  });

  it("gives the token the client's tenant when it has one", async () => {
    const { client_secret } = await w.core.admin.createClient({ realm: w.realm, clientId: 'svc-tenant', tenantId: 'tenant-x' });
    const t = await w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-tenant', client_secret });
    expect(decodeJwt(t.access_token).tenant_id).toBe('tenant-x');
  });

  it('records the caller address in clientHost and clientAddress', async () => {
    const t = await w.core.service.issueForClient(
      { realm: w.realm, client_id: 'svc-a', client_secret: w.secret },
      { clientAddress: '10.0.0.7' },
    );
    expect(decodeJwt(t.access_token)).toMatchObject({ clientHost: '10.0.0.7', clientAddress: '10.0.0.7' });
  });

  it('issues a refresh token of type Refresh for the same session, signed HS512 as Keycloak signs them', () => {
    expect(decodeProtectedHeader(clientToken.refresh_token).alg).toBe('HS512');
    const refresh = decodeJwt(clientToken.refresh_token);
    expect(refresh).toMatchObject({ typ: 'Refresh', iss: issuerOf(w.realm), azp: 'svc-a', sid: clientToken.session_state });
    expect(refresh.exp! - refresh.iat!).toBe(1800);
  });

  it('uses the default realm when none is given', async () => {
    const t = await w.core.service.issueForClient({ client_id: 'svc-a', client_secret: w.secret });
    expect(decodeJwt(t.access_token).iss).toBe(issuerOf(w.realm));
  });

  it('refuses a wrong secret and an unknown client with the same invalid_client error', async () => {
    const refusals = await refusalsOf([
      asClient({ client_secret: 'not-the-secret' }),
      w.core.service.issueForClient({ realm: w.realm, client_id: 'nobody', client_secret: w.secret }),
    ]);
    for (const reason of refusals) {
      expect(reason).toBeInstanceOf(AuthenticationFailed);
      expect(reason).toMatchObject({ code: 'invalid_client', message: 'Authentication failed' });
    }
  });

  it('refuses client credentials for the public login client, which has no secret', async () => {
    await expect(w.core.service.issueForClient({ realm: w.realm, client_id: 'platform-login', client_secret: '' })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
  });

  it('refuses a disabled client', async () => {
    const { client_secret } = await w.core.admin.createClient({ realm: w.realm, clientId: 'svc-disabled' });
    await w.core.admin.setClientEnabled(w.realm, 'svc-disabled', false);
    await expect(w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-disabled', client_secret })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
  });

  it('refuses an unsupported grant type', async () => {
    await expect(asClient({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code' })).rejects.toBeInstanceOf(UnsupportedGrantType);
    await expect(asClient({ grant_type: 'implicit' })).rejects.toMatchObject({ code: 'unsupported_grant_type' });
  });

  it('grants a password token at the token endpoint too, to the authenticated client (as Keycloak does)', async () => {
    const t = await asClient({ grant_type: 'password', username: 'alice', password: PASSWORD });
    expect(decodeJwt(t.access_token)).toMatchObject({ azp: 'svc-a', preferred_username: 'alice', tenant_id: 'tenant-a' });
    await expect(asClient({ grant_type: 'password', username: 'alice', password: 'wrong' })).rejects.toMatchObject({
      code: 'invalid_grant',
    });
  });

  it('answers realm not found for an unknown realm', async () => {
    const attempt = w.core.service.issueForClient({ realm: randomUUID(), client_id: 'svc-a', client_secret: w.secret });
    await expect(attempt).rejects.toBeInstanceOf(RealmNotFound);
    await expect(attempt).rejects.toMatchObject({ code: 'realm_not_found', message: 'Realm not found' });
  });
});

describe('scopes', () => {
  it('grants every allowed scope when none is asked for', () => {
    expect(clientToken.scope).toBe('openid profile email search');
  });

  it('grants a subset of the allowed scopes, space- or comma-separated', async () => {
    expect((await asClient({ scopes: 'search' })).scope).toBe('search');
    const t = await asClient({ scopes: 'openid,search' });
    expect(t.scope).toBe('openid search');
    expect(decodeJwt(t.access_token).scope).toBe('openid search');
  });

  it('refuses a scope the client is not allowed, with invalid_scope', async () => {
    await expect(asClient({ scopes: 'openid admin' })).rejects.toBeInstanceOf(InvalidScope);
    await expect(asClient({ scopes: 'admin' })).rejects.toMatchObject({ code: 'invalid_scope' });
  });

  it('gives clients created without scopes the default ones', async () => {
    const svc = (await w.core.admin.listClients(w.realm)).find((c) => c.clientId === 'svc-tenant');
    expect(svc?.scopes).toEqual(['openid', 'profile', 'email']);
  });
});

describe('password login', () => {
  let login: TokenResponse;
  beforeAll(async () => {
    login = await asAlice();
  });

  it("issues a token carrying the user's roles, tenant and name through the public platform-login client", async () => {
    const alice = (await w.core.store.users.get(w.realm, 'alice'))!;
    const claims = decodeJwt(login.access_token);
    expect(claims).toMatchObject({
      iss: issuerOf(w.realm),
      typ: 'Bearer',
      sub: alice.id,
      azp: 'platform-login',
      sid: login.session_state,
      realm_access: { roles: ['search:read'] },
      tenant_id: 'tenant-a',
      preferred_username: 'alice',
      email: 'alice@example.com',
      email_verified: false,
      scope: 'openid profile email',
    });
    expect(claims).not.toHaveProperty('clientId');
  });

  it('logs in through a named confidential client with its secret', async () => {
    const t = await asAlice({ client_id: 'svc-a', client_secret: w.secret, scopes: 'search' });
    expect(decodeJwt(t.access_token)).toMatchObject({
      azp: 'svc-a',
      preferred_username: 'alice',
      scope: 'search',
      realm_access: { roles: ['search:read'] },
    });
  });

  it('refuses a named confidential client without its secret', async () => {
    await expect(asAlice({ client_id: 'svc-a' })).rejects.toMatchObject({ code: 'invalid_client' });
  });

  it('refuses a wrong password and an unknown user with the same invalid_grant error', async () => {
    // One failure stays under the lockout threshold; the next successful login forgets it.
    const refusals = await refusalsOf([asAlice({ password: 'wrong password' }), asAlice({ username: 'mallory' })]);
    for (const reason of refusals) {
      expect(reason).toBeInstanceOf(AuthenticationFailed);
      expect(reason).toMatchObject({ code: 'invalid_grant', message: 'Authentication failed' });
    }
    await expect(asAlice()).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('refuses a disabled user even with the right password', async () => {
    await w.core.admin.createUser({ realm: w.realm, username: 'bob', password: PASSWORD });
    await w.core.admin.setUserEnabled(w.realm, 'bob', false);
    await expect(w.core.service.loginUser({ realm: w.realm, username: 'bob', password: PASSWORD })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
  });

  it('refuses an unsupported grant type', async () => {
    await expect(asAlice({ grant_type: 'client_credentials' })).rejects.toBeInstanceOf(UnsupportedGrantType);
  });

  it('refuses a scope the login client does not allow', async () => {
    await expect(asAlice({ scopes: 'search' })).rejects.toBeInstanceOf(InvalidScope);
  });
});

describe('refresh tokens', () => {
  it('rotates: a refresh gives new tokens for the same session', async () => {
    const first = await asClient();
    const next = await asClient({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(next.session_state).toBe(first.session_state);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(next.refresh_token).jti).not.toBe(decodeJwt(first.refresh_token).jti);
    expect(decodeJwt(next.access_token)).toMatchObject({
      azp: 'svc-a',
      sid: first.session_state,
      realm_access: { roles: ['search:read', 'search:write'] },
    });
    await expect(introspect(next.access_token)).resolves.toMatchObject({ active: 'true' });
  });

  it('refreshes a user login through the public client, keeping the user claims', async () => {
    const login = await asAlice();
    const next = await w.core.service.loginUser({ realm: w.realm, grant_type: 'refresh_token', refresh_token: login.refresh_token });
    expect(next.session_state).toBe(login.session_state);
    expect(decodeJwt(next.access_token)).toMatchObject({ preferred_username: 'alice', tenant_id: 'tenant-a', azp: 'platform-login' });
  });

  it('detects reuse of a rotated refresh token and ends the whole session', async () => {
    const first = await asClient();
    const second = await asClient({ grant_type: 'refresh_token', refresh_token: first.refresh_token });

    await expect(asClient({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).rejects.toBeInstanceOf(InvalidGrant);
    // The legitimate holder's newer tokens die with the session.
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: second.refresh_token })).rejects.toMatchObject({
      code: 'invalid_grant',
    });
    await expect(introspect(second.access_token)).resolves.toEqual({ active: 'false' });
    expect((await w.core.store.sessions.get(first.session_state))?.revokedAt).not.toBeNull();
  });

  it('refuses a refresh token issued to client A when client B presents it, without ending the session', async () => {
    const { client_secret } = await w.core.admin.createClient({ realm: w.realm, clientId: 'svc-b' });
    const ofA = await asClient();
    const byB = w.core.service.issueForClient({
      realm: w.realm,
      client_id: 'svc-b',
      client_secret,
      grant_type: 'refresh_token',
      refresh_token: ofA.refresh_token,
    });
    await expect(byB).rejects.toBeInstanceOf(InvalidGrant);
    await expect(byB).rejects.toMatchObject({ code: 'invalid_grant', message: 'Refresh token was issued to another client' });
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: ofA.refresh_token })).resolves.toMatchObject({
      session_state: ofA.session_state,
    });
  });

  it("refuses a user's refresh token presented by another client", async () => {
    const login = await asAlice();
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: login.refresh_token })).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('refuses an access token used as a refresh token', async () => {
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: clientToken.access_token })).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('refuses garbage and asks for a missing refresh token', async () => {
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: 'not.a.jwt' })).rejects.toBeInstanceOf(InvalidGrant);
    await expect(asClient({ grant_type: 'refresh_token' })).rejects.toBeInstanceOf(InvalidRequest);
  });

  it('may narrow the scopes of a session but not widen them', async () => {
    const narrow = await asClient({ scopes: 'openid search' });
    const next = await asClient({ grant_type: 'refresh_token', refresh_token: narrow.refresh_token, scopes: 'search' });
    expect(next.scope).toBe('search');
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: next.refresh_token, scopes: 'profile' })).rejects.toBeInstanceOf(
      InvalidScope,
    );
  });
});

describe('introspection and revocation', () => {
  it('answers an active token with its claims, client_id, username and boolean words', async () => {
    const login = await asAlice();
    const claims = decodeJwt(login.access_token);
    await expect(introspect(login.access_token)).resolves.toEqual({
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      iss: issuerOf(w.realm),
      sub: claims.sub,
      typ: 'Bearer',
      azp: 'platform-login',
      session_state: login.session_state,
      sid: login.session_state,
      preferred_username: 'alice',
      email_verified: 'false',
      realm_access: { roles: ['search:read'] },
      scope: 'openid profile email',
      client_id: 'platform-login',
      username: 'alice',
      tenant_id: 'tenant-a',
      active: 'true',
    });
  });

  it('includes the service-account claims of a client token', async () => {
    await expect(introspect(clientToken.access_token)).resolves.toMatchObject({
      active: 'true',
      client_id: 'svc-a',
      clientId: 'svc-a',
      username: 'service-account-svc-a',
      tenant_id: w.realm,
    });
  });

  it('answers inactive for a missing token, garbage, a refresh token and another realm', async () => {
    const other = (await w.core.admin.createRealm({ name: 'other' })).id;
    await expect(w.core.service.introspect({ realm: w.realm })).resolves.toEqual({ active: 'false' });
    await expect(introspect('garbage')).resolves.toEqual({ active: 'false' });
    await expect(introspect(clientToken.refresh_token)).resolves.toEqual({ active: 'false' });
    await expect(introspect(clientToken.access_token, other)).resolves.toEqual({ active: 'false' });
  });

  it('answers inactive once the session is revoked by its access token', async () => {
    const t = await asClient();
    await w.core.service.revoke({ realm: w.realm, token: t.access_token });
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
  });

  it('ends the session when its refresh token is revoked', async () => {
    const t = await asClient();
    await w.core.service.revoke({ realm: w.realm, token: t.refresh_token });
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
    await expect(asClient({ grant_type: 'refresh_token', refresh_token: t.refresh_token })).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('ignores revocation of an unknown or invalid token', async () => {
    await expect(w.core.service.revoke({ realm: w.realm, token: 'garbage' })).resolves.toBeUndefined();
    await expect(w.core.service.revoke({ realm: w.realm })).resolves.toBeUndefined();
    await expect(introspect(clientToken.access_token)).resolves.toMatchObject({ active: 'true' });
  });

  it("ends a client's sessions when it is disabled: enabling it again does not revive its tokens", async () => {
    const { client_secret } = await w.core.admin.createClient({ realm: w.realm, clientId: 'svc-toggle' });
    const t = await w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-toggle', client_secret });
    await w.core.admin.setClientEnabled(w.realm, 'svc-toggle', false);
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
    await w.core.admin.setClientEnabled(w.realm, 'svc-toggle', true);
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
    await expect(
      w.core.service.issueForClient({
        realm: w.realm,
        client_id: 'svc-toggle',
        client_secret,
        grant_type: 'refresh_token',
        refresh_token: t.refresh_token,
      }),
    ).rejects.toBeInstanceOf(InvalidGrant);
    await expect(w.core.service.issueForClient({ realm: w.realm, client_id: 'svc-toggle', client_secret })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it("ends a user's sessions when the user is disabled: enabling again revives neither access nor refresh tokens", async () => {
    await w.core.admin.createUser({ realm: w.realm, username: 'dora', password: PASSWORD });
    const t = await w.core.service.loginUser({ realm: w.realm, username: 'dora', password: PASSWORD });
    await w.core.admin.setUserEnabled(w.realm, 'dora', false);
    await w.core.admin.setUserEnabled(w.realm, 'dora', true);
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
    await expect(w.core.service.refresh({ realm: w.realm, refresh_token: t.refresh_token })).rejects.toBeInstanceOf(InvalidGrant);
    await expect(w.core.service.loginUser({ realm: w.realm, username: 'dora', password: PASSWORD })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('logout ends every session of a user; set-password ends them too, and only the new password works', async () => {
    await w.core.admin.createUser({ realm: w.realm, username: 'eve', password: PASSWORD });
    const a = await w.core.service.loginUser({ realm: w.realm, username: 'eve', password: PASSWORD });
    const b = await w.core.service.loginUser({ realm: w.realm, username: 'eve', password: PASSWORD });
    expect(await w.core.admin.logout(w.realm, 'eve')).toEqual({ realm: w.realm, username: 'eve', sessions_ended: 2 });
    for (const t of [a, b]) await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });

    const c = await w.core.service.loginUser({ realm: w.realm, username: 'eve', password: PASSWORD });
    await expect(w.core.admin.setPassword(w.realm, 'eve', 'a brand new password')).resolves.toMatchObject({
      username: 'eve',
      sessions_ended: 1,
    });
    await expect(introspect(c.access_token)).resolves.toEqual({ active: 'false' });
    await expect(w.core.service.loginUser({ realm: w.realm, username: 'eve', password: PASSWORD })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
    await expect(w.core.service.loginUser({ realm: w.realm, username: 'eve', password: 'a brand new password' })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    await expect(w.core.admin.setPassword(w.realm, 'eve', 'short')).rejects.toBeInstanceOf(BadRequest);
    await expect(w.core.admin.logout(w.realm, 'nobody')).rejects.toThrow(BadRequest);
  });

  it("answers inactive for a user's tokens once the user is disabled, and refuses their refresh", async () => {
    await w.core.admin.createUser({ realm: w.realm, username: 'carol', password: PASSWORD });
    const t = await w.core.service.loginUser({ realm: w.realm, username: 'carol', password: PASSWORD });
    await w.core.admin.setUserEnabled(w.realm, 'carol', false);
    await expect(introspect(t.access_token)).resolves.toEqual({ active: 'false' });
    await expect(
      w.core.service.loginUser({ realm: w.realm, grant_type: 'refresh_token', refresh_token: t.refresh_token }),
    ).rejects.toBeInstanceOf(InvalidGrant);
  });
});

describe('disabled realms', () => {
  it('behave as not found for every operation, and come back when re-enabled', async () => {
    const realm = (await w.core.admin.createRealm({ name: 'switchable' })).id;
    const { client_secret } = await w.core.admin.createClient({ realm, clientId: 'svc' });
    const t = await w.core.service.issueForClient({ realm, client_id: 'svc', client_secret });

    await w.core.admin.setRealmEnabled(realm, false);
    const s = w.core.service;
    await expect(s.issueForClient({ realm, client_id: 'svc', client_secret })).rejects.toBeInstanceOf(RealmNotFound);
    await expect(s.loginUser({ realm, username: 'alice', password: PASSWORD })).rejects.toBeInstanceOf(RealmNotFound);
    await expect(s.introspect({ realm, token: t.access_token })).rejects.toBeInstanceOf(RealmNotFound);
    await expect(s.realm({ realm })).rejects.toBeInstanceOf(RealmNotFound);
    await expect(s.jwks({ realm })).rejects.toBeInstanceOf(RealmNotFound);

    // Disabling ended the realm's sessions: enabling it again does not revive old tokens.
    await w.core.admin.setRealmEnabled(realm, true);
    await expect(s.introspect({ realm, token: t.access_token })).resolves.toEqual({ active: 'false' });
    await expect(s.issueForClient({ realm, client_id: 'svc', client_secret })).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('describes an enabled realm with its issuer and JWKS address', async () => {
    await expect(w.core.service.realm({ realm: w.realm })).resolves.toEqual({
      id: w.realm,
      name: 'main',
      enabled: true,
      issuer: issuerOf(w.realm),
      jwksUri: `${issuerOf(w.realm)}/protocol/openid-connect/certs`,
      accessTokenLifespan: 300,
      refreshTokenLifespan: 1800,
      audiences: expect.arrayContaining(['account']),
      // Keycloak's public_key: the signing key's SubjectPublicKeyInfo, base64 (an RSA 2048 key is 294 bytes).
      publicKey: expect.stringMatching(/^MIIBIjAN[A-Za-z0-9+/]+=*$/),
    });
  });

  it("gives a realm's new public key once its signing key is rotated (the encoded key is remembered per key)", async () => {
    const before = (await w.core.service.realm({ realm: w.realm })).publicKey;
    await expect(w.core.service.realm({ realm: w.realm })).resolves.toMatchObject({ publicKey: before });
    await w.core.admin.rotateRealmKey(w.realm);
    const after = (await w.core.service.realm({ realm: w.realm })).publicKey;
    expect(after).toMatch(/^MIIBIjAN[A-Za-z0-9+/]+=*$/);
    expect(after).not.toBe(before);
  });
});

describe('time-dependent behaviour', () => {
  let t: World;
  beforeEach(async () => {
    t = await world({ threshold: 3, seconds: 600 });
  });
  afterEach(() => t.core.close());
  const login = (password: string, from = '10.9.0.1') =>
    t.core.service.loginUser({ realm: t.realm, username: 'alice', password }, { clientAddress: from });
  const aliceLocked = async () => (await t.core.admin.listUsers(t.realm)).find((u) => u.username === 'alice')?.locked;

  it('refuses a source its threshold of wrong passwords for an account, even the right one, until the window passes; other sources still sign in', async () => {
    for (let i = 0; i < 3; i++) await expect(login('wrong password')).rejects.toBeInstanceOf(AuthenticationFailed);
    await expect(login(PASSWORD)).rejects.toMatchObject({ code: 'invalid_grant', message: 'Authentication failed' });
    await expect(login(PASSWORD, '10.9.0.2')).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(await aliceLocked()).toBe(false);

    t.clock.advance(599_000);
    await expect(login(PASSWORD)).rejects.toBeInstanceOf(AuthenticationFailed);
    t.clock.advance(2_000);
    await expect(login(PASSWORD)).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('counts wrong passwords sent in parallel atomically: of 20 at once from one source, its threshold are hashed and the source is refused', async () => {
    const scrypt = jest.spyOn(fastHasher, 'matches');
    await Promise.all(Array.from({ length: 20 }, (_, i) => login(`wrong password ${i}`).catch(() => undefined)));
    expect(scrypt).toHaveBeenCalledTimes(3);
    scrypt.mockRestore();
    await expect(login(PASSWORD)).rejects.toBeInstanceOf(AuthenticationFailed);
    await expect(login(PASSWORD, '10.9.0.2')).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it("forgets a source's failed attempts after its successful login", async () => {
    for (let i = 0; i < 2; i++) await expect(login('wrong password')).rejects.toBeInstanceOf(AuthenticationFailed);
    await login(PASSWORD);
    for (let i = 0; i < 2; i++) await expect(login('wrong password')).rejects.toBeInstanceOf(AuthenticationFailed);
    await expect(login(PASSWORD)).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('answers inactive for an access token past its lifetime, while its refresh token still works', async () => {
    const tok = await t.core.service.issueForClient({ realm: t.realm, client_id: 'svc-a', client_secret: t.secret });
    t.clock.advance(301_000);
    await expect(t.core.service.introspect({ realm: t.realm, token: tok.access_token })).resolves.toEqual({ active: 'false' });
    const next = await t.core.service.issueForClient({
      realm: t.realm,
      client_id: 'svc-a',
      client_secret: t.secret,
      grant_type: 'refresh_token',
      refresh_token: tok.refresh_token,
    });
    await expect(t.core.service.introspect({ realm: t.realm, token: next.access_token })).resolves.toMatchObject({ active: 'true' });
  });

  it('extends the session on refresh, so pruning only drops sessions idle past the refresh lifetime', async () => {
    const tok = await t.core.service.issueForClient({ realm: t.realm, client_id: 'svc-a', client_secret: t.secret });
    t.clock.advance(1_000_000);
    await t.core.service.issueForClient({
      realm: t.realm,
      client_id: 'svc-a',
      client_secret: t.secret,
      grant_type: 'refresh_token',
      refresh_token: tok.refresh_token,
    });
    t.clock.advance(1_000_000); // past the first refresh token's lifetime, within the rotated one's
    expect(await t.core.admin.prune()).toBe(0);
    expect(await t.core.store.sessions.get(tok.session_state)).toBeDefined();
  });

  it('prunes sessions once the clock passes the refresh lifetime; their tokens stop working', async () => {
    const tok = await t.core.service.issueForClient({ realm: t.realm, client_id: 'svc-a', client_secret: t.secret });
    expect(await t.core.admin.prune()).toBe(0);
    t.clock.advance(1_800_000);
    expect(await t.core.admin.prune()).toBe(0);
    t.clock.advance(1_000);
    expect(await t.core.admin.prune()).toBe(1);
    expect(await t.core.store.sessions.get(tok.session_state)).toBeUndefined();
    await expect(
      t.core.service.issueForClient({
        realm: t.realm,
        client_id: 'svc-a',
        client_secret: t.secret,
        grant_type: 'refresh_token',
        refresh_token: tok.refresh_token,
      }),
    ).rejects.toBeInstanceOf(InvalidGrant);
    // A session opened now is kept.
    await t.core.service.issueForClient({ realm: t.realm, client_id: 'svc-a', client_secret: t.secret });
    expect(await t.core.admin.prune()).toBe(0);
  });
});

describe('administration rules', () => {
  it('gives every realm the public platform-login client, and makes the first realm the default', async () => {
    const login = (await w.core.admin.listClients(w.realm)).find((c) => c.clientId === 'platform-login');
    expect(login).toMatchObject({ public: true, enabled: true, tenantId: w.realm });
    expect((await w.core.admin.listRealms()).find((r) => r.id === w.realm)?.default).toBe(true);
  });

  it('refuses a duplicate client id or username in a realm with Conflict', async () => {
    await expect(w.core.admin.createClient({ realm: w.realm, clientId: 'svc-a' })).rejects.toBeInstanceOf(Conflict);
    await expect(w.core.admin.createUser({ realm: w.realm, username: 'alice', password: 'another password' })).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(w.core.admin.createUser({ realm: w.realm, username: 'ALICE', password: 'another password' })).rejects.toBeInstanceOf(
      Conflict,
    );
  });

  it('refuses a duplicate realm name, whatever its case, with Conflict', async () => {
    await expect(w.core.admin.createRealm({ name: 'MAIN' })).rejects.toBeInstanceOf(Conflict);
    await expect(w.core.admin.createRealm({ id: w.realm, name: 'fresh-name' })).rejects.toBeInstanceOf(Conflict);
  });

  it('refuses a password shorter than 8 characters and a client secret shorter than 16', async () => {
    await expect(w.core.admin.createUser({ realm: w.realm, username: 'dave', password: 'short7!' })).rejects.toBeInstanceOf(BadRequest);
    await expect(w.core.admin.createClient({ realm: w.realm, clientId: 'svc-short', secret: 'fifteen-chars!!' })).rejects.toBeInstanceOf(
      BadRequest,
    );
    expect(await w.core.store.users.get(w.realm, 'dave')).toBeUndefined();
  });

  it.each(['', 'has space', '-leading-dash', 'slash/ed', 'x'.repeat(129)])(
    'refuses the bad name %j for clients, users and realms',
    async (name) => {
      await expect(w.core.admin.createClient({ realm: w.realm, clientId: name })).rejects.toBeInstanceOf(BadRequest);
      await expect(w.core.admin.createUser({ realm: w.realm, username: name, password: PASSWORD })).rejects.toBeInstanceOf(BadRequest);
      await expect(w.core.admin.createRealm({ name })).rejects.toBeInstanceOf(BadRequest);
    },
  );

  it('refuses lifespans that are not positive or where the refresh one is shorter than the access one', async () => {
    await expect(w.core.admin.createRealm({ name: 'r1', accessTokenLifespan: 0 })).rejects.toBeInstanceOf(BadRequest);
    await expect(w.core.admin.createRealm({ name: 'r2', accessTokenLifespan: -5 })).rejects.toBeInstanceOf(BadRequest);
    await expect(w.core.admin.createRealm({ name: 'r3', accessTokenLifespan: 600, refreshTokenLifespan: 300 })).rejects.toBeInstanceOf(
      BadRequest,
    );
    const names = (await w.core.admin.listRealms()).map((r) => r.name);
    for (const refused of ['r1', 'r2', 'r3']) expect(names).not.toContain(refused);
  });

  it("issues tokens with the realm's configured lifespans", async () => {
    const realm = (await w.core.admin.createRealm({ name: 'short-lived', accessTokenLifespan: 60, refreshTokenLifespan: 120 })).id;
    const { client_secret } = await w.core.admin.createClient({ realm, clientId: 'svc' });
    const t = await w.core.service.issueForClient({ realm, client_id: 'svc', client_secret });
    expect(t).toMatchObject({ expires_in: 60, refresh_expires_in: 120 });
  });

  it('answers realm not found when administering an unknown realm', async () => {
    await expect(w.core.admin.createClient({ realm: randomUUID(), clientId: 'svc' })).rejects.toBeInstanceOf(RealmNotFound);
    await expect(w.core.admin.listUsers(randomUUID())).rejects.toThrow(RealmNotFound);
  });

  it('returns a generated client secret once, and never in list views', async () => {
    const clients = await w.core.admin.listClients(w.realm);
    const users = await w.core.admin.listUsers(w.realm);
    const shown = JSON.stringify({ clients, users });
    expect(w.secret.length).toBeGreaterThanOrEqual(16);
    expect(shown).not.toContain(w.secret);
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain('scrypt$');
    for (const c of clients) expect(c).not.toHaveProperty('secretHash');
    for (const u of users) expect(u).not.toHaveProperty('passwordHash');
  });

  it('stores generated secrets only as keyed hashes and passwords only as scrypt hashes', async () => {
    const client = (await w.core.store.clients.get(w.realm, 'svc-a'))!;
    const user = (await w.core.store.users.get(w.realm, 'alice'))!;
    expect(client.secretHash?.startsWith('hmac-sha256$')).toBe(true);
    expect(user.passwordHash.startsWith('scrypt$')).toBe(true);
    expect(client.secretHash).not.toContain(w.secret);
    expect((await w.core.store.clients.get(w.realm, 'platform-login'))?.secretHash).toBeNull();
  });
});
