import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import request from 'supertest';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

const TOKEN = '/auth/api/v1/oauth/connect/token';
const LOGIN = '/auth/api/v1/oauth/connect/user/login';
const SPEC_INTROSPECT = '/auth/api/v1/oauth/connect/introspect';
const REVOKE = '/auth/api/v1/oauth/connect/revoke';
const realmPath = (realm: string) => `/auth/api/v1/realms/${realm}`;
const introspectPath = (realm: string) => `${realmPath(realm)}/protocol/openid-connect/token/introspect`;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

type Tokens = { access_token: string; refresh_token: string };

async function clientTokens(f: TokenFixture, extra: Record<string, string | string[]> = {}): Promise<Tokens> {
  const res = await request(f.app)
    .post(TOKEN)
    .type('form')
    .send({ realm: f.realm, ...f.client, ...extra });
  expect(res.status).toBe(200);
  return res.body as Tokens;
}

/** RFC 7662 introspection as a resource server does it: HTTP Basic, form body. */
const introspect = (f: TokenFixture, token: string, realm = f.realm) =>
  request(f.app)
    .post(introspectPath(realm))
    .set('authorization', basic(f.client.client_id, f.client.client_secret))
    .type('form')
    .send({ token });

describe("RFC 7662 introspection at the discovery document's introspection_endpoint", () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('answers an active token with a boolean active, real booleans, aud and token_type, not to be cached', async () => {
    const t = await clientTokens(f);
    const res = await introspect(f, t.access_token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      active: true,
      client_id: 'svc-a',
      username: 'service-account-svc-a',
      token_type: 'Bearer',
      email_verified: false,
      aud: ['account', 'search'],
      iss: decodeJwt(t.access_token).iss,
      sub: decodeJwt(t.access_token).sub,
      scope: expect.any(String),
    });
    expect(typeof res.body.exp).toBe('number');
  });

  it('takes client_secret_post as well as client_secret_basic, and token_type_hint', async () => {
    const t = await clientTokens(f);
    const res = await request(f.app)
      .post(introspectPath(f.realm))
      .type('form')
      .send({ token: t.access_token, token_type_hint: 'access_token', ...f.client });
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(true);
  });

  it('answers exactly {"active": false} for garbage, a refresh token, another realm\'s token and a revoked session', async () => {
    const t = await clientTokens(f);
    const rs = await f.core.admin.createClient({ realm: f.otherRealm, clientId: 'resource-server' });
    const other = await request(f.app)
      .post(introspectPath(f.otherRealm))
      .set('authorization', basic('resource-server', rs.client_secret))
      .type('form')
      .send({ token: t.access_token });
    expect(other.body).toEqual({ active: false });
    // A client of one realm cannot introspect at another's.
    expect((await introspect(f, t.access_token, f.otherRealm)).status).toBe(401);
    for (const token of ['not-a-token', t.refresh_token]) {
      const res = await request(f.app)
        .post(introspectPath(f.realm))
        .type('form')
        .send({ token, token_type_hint: 'refresh_token', ...f.client });
      expect(res.body).toEqual({ active: false });
    }
    await request(f.app).post(REVOKE).type('form').send({ realm: f.realm, token: t.refresh_token }).expect(200);
    expect((await introspect(f, t.access_token)).body).toEqual({ active: false });
  });

  it('refuses an unauthenticated or wrongly authenticated caller: 401 invalid_client, and a missing token: 422', async () => {
    const t = await clientTokens(f);
    const wrong = await request(f.app)
      .post(introspectPath(f.realm))
      .set('authorization', basic('svc-a', 'not the secret'))
      .type('form')
      .send({ token: t.access_token });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
    const none = await request(f.app).post(introspectPath(f.realm)).type('form').send({ token: t.access_token });
    expect(none.status).toBe(422);
    expect(none.body.detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual(['client_id', 'client_secret']);
    const noToken = await request(f.app).post(introspectPath(f.realm)).type('form').send(f.client);
    expect(noToken.status).toBe(422);
    expect(noToken.body.detail[0].loc).toEqual(['body', 'token']);
  });

  it("leaves the spec's introspection path as it was: booleans as words, no client authentication", async () => {
    const t = await clientTokens(f);
    const res = await request(f.app).post(SPEC_INTROSPECT).type('form').send({ realm: f.realm, token: t.access_token });
    expect(res.body).toMatchObject({ active: 'true', email_verified: 'false' });
    expect(res.body).not.toHaveProperty('aud');
    const inactive = await request(f.app).post(SPEC_INTROSPECT).type('form').send({ realm: f.realm, token: 'nope' });
    expect(inactive.body).toEqual({ active: 'false' });
  });
});

describe('discovery consistent with the issuer in tokens', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
    await f.core.admin.setDefaultRealm(f.realm);
  });

  it('serves both well-known documents under the issuer, advertising RFC 7662 auth methods and the audiences', async () => {
    const iss = decodeJwt((await clientTokens(f)).access_token).iss;
    expect(iss).toBe(`${PUBLIC_URL}${realmPath(f.realm)}`);
    for (const doc of ['openid-configuration', 'oauth-authorization-server']) {
      const res = await request(f.app).get(`${realmPath(f.realm)}/.well-known/${doc}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        issuer: iss,
        introspection_endpoint: `${iss}/protocol/openid-connect/token/introspect`,
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        audiences_supported: ['account', 'search'],
      });
    }
  });

  it("answers 307 at the default alias, naming the issuer's own document in Location and in the body", async () => {
    for (const doc of ['openid-configuration', 'oauth-authorization-server']) {
      const res = await request(f.app).get(`${realmPath('default')}/.well-known/${doc}`);
      const location = `${PUBLIC_URL}${realmPath(f.realm)}/.well-known/${doc}`;
      expect(res.status).toBe(307);
      expect(res.headers.location).toBe(location);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ error: 'invalid_request', issuer: `${PUBLIC_URL}${realmPath(f.realm)}`, location });
      expect(res.body.detail).toContain(location);
    }
  });

  it("lists the audiences in the realm's public facts; an unknown realm is still 404", async () => {
    expect((await request(f.app).get(realmPath('default'))).body.audiences).toEqual(['account', 'search']);
    expect((await request(f.app).get(`${realmPath('00000000-0000-4000-8000-000000000000')}/.well-known/openid-configuration`)).status).toBe(
      404,
    );
  });
});

describe('an access token for one service (RFC 8707 resource, or audience)', () => {
  let f: TokenFixture;
  let jwks: ReturnType<typeof createLocalJWKSet>;
  const verify = (token: string, audience: string) =>
    jwtVerify(token, jwks, {
      issuer: `${PUBLIC_URL}${realmPath(f.realm)}`,
      audience,
      currentDate: new Date(f.clock.now()),
    });
  beforeAll(async () => {
    f = await tokenFixture();
    jwks = createLocalJWKSet((await request(f.app).get(`${realmPath(f.realm)}/protocol/openid-connect/certs`)).body as JSONWebKeySet);
  });

  it("names only the service asked for, so jose's audience check passes for it and fails for another", async () => {
    const t = await clientTokens(f, { resource: 'search' });
    expect(decodeJwt(t.access_token).aud).toEqual(['search']);
    await expect(verify(t.access_token, 'search')).resolves.toBeDefined();
    await expect(verify(t.access_token, 'account')).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });
  });

  it('names every service when nothing is asked (as before), and takes `audience` and repeated values too', async () => {
    expect(decodeJwt((await clientTokens(f)).access_token).aud).toEqual(['account', 'search']);
    expect(decodeJwt((await clientTokens(f, { audience: 'account' })).access_token).aud).toEqual(['account']);
    const both = await request(f.app)
      .post(TOKEN)
      .query({ realm: f.realm, ...f.client, resource: ['search', 'account'] });
    expect(decodeJwt(both.body.access_token).aud).toEqual(['search', 'account']);
  });

  it('refuses an audience no service has: 400 invalid_target', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .type('form')
      .send({ realm: f.realm, ...f.client, resource: 'billing' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_target', detail: 'Unknown audience: billing' });
  });

  it('keeps the narrowed audience through refresh, which may narrow it but never widen it', async () => {
    const login = await request(f.app)
      .post(LOGIN)
      .type('form')
      .send({ realm: f.realm, ...f.user, resource: 'search' });
    expect(decodeJwt(login.body.access_token).aud).toEqual(['search']);
    const refreshed = await request(f.app)
      .post(LOGIN)
      .type('form')
      .send({ realm: f.realm, grant_type: 'refresh_token', refresh_token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).aud).toEqual(['search']);
    const widened = await request(f.app)
      .post(LOGIN)
      .type('form')
      .send({ realm: f.realm, grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, resource: 'account' });
    expect(widened.status).toBe(400);
    expect(widened.body.error).toBe('invalid_target');

    const all = await clientTokens(f, { grant_type: 'password', ...f.user });
    const narrowed = await clientTokens(f, { grant_type: 'refresh_token', refresh_token: all.refresh_token, audience: 'account' });
    expect(decodeJwt(narrowed.access_token).aud).toEqual(['account']);
    const again = await clientTokens(f, { grant_type: 'refresh_token', refresh_token: narrowed.refresh_token });
    expect(decodeJwt(again.access_token).aud).toEqual(['account', 'search']);
  });
});
