import { randomUUID } from 'node:crypto';
import {
  SignJWT,
  base64url,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportSPKI,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JSONWebKeySet,
  type KeyLike,
} from 'jose';
import request from 'supertest';
import { fastHasher } from '../../shared/helpers';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

const TOKEN = '/auth/api/v1/oauth/connect/token';
const LOGIN = '/auth/api/v1/oauth/connect/user/login';
const INTROSPECT = '/auth/api/v1/oauth/connect/introspect';
const REVOKE = '/auth/api/v1/oauth/connect/revoke';
const certsPath = (realm: string) => `/auth/api/v1/realms/${realm}/protocol/openid-connect/certs`;
const discoveryPath = (realm: string) => `/auth/api/v1/realms/${realm}/.well-known/openid-configuration`;

const INACTIVE = { active: 'false' };

/** Every claim the spec lists for an active token, plus DECISIONS' tenant_id. */
const USER_FIELDS = [
  'exp',
  'iat',
  'jti',
  'iss',
  'sub',
  'typ',
  'azp',
  'session_state',
  'preferred_username',
  'email_verified',
  'realm_access',
  'scope',
  'sid',
  'client_id',
  'username',
  'tenant_id',
  'active',
];
const CLIENT_FIELDS = [...USER_FIELDS, 'clientId', 'clientHost', 'clientAddress'];

type Tokens = { access_token: string; refresh_token: string; session_state: string; scope: string };

async function clientTokens(f: TokenFixture, query: Record<string, string> = {}): Promise<Tokens> {
  const res = await request(f.app)
    .post(TOKEN)
    .query({ realm: f.realm, ...f.client, ...query });
  expect(res.status).toBe(200);
  return res.body as Tokens;
}

async function userTokens(f: TokenFixture, user = f.user, realm = f.realm): Promise<Tokens> {
  const res = await request(f.app)
    .post(LOGIN)
    .query({ realm, ...user });
  expect(res.status).toBe(200);
  return res.body as Tokens;
}

async function introspect(f: TokenFixture, token: string, realm = f.realm): Promise<Record<string, unknown>> {
  const res = await request(f.app).post(INTROSPECT).type('form').send({ realm, token });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body as Record<string, unknown>;
}

const encodeJson = (v: unknown) => base64url.encode(JSON.stringify(v));

describe('POST /oauth/connect/introspect: active tokens', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('answers a client-credentials token with every Keycloak claim and the service-account fields', async () => {
    const tokens = await clientTokens(f);
    const body = await introspect(f, tokens.access_token);
    const claims = decodeJwt(tokens.access_token);

    expect(Object.keys(body).sort()).toEqual([...CLIENT_FIELDS].sort());
    expect(body).toEqual({
      active: 'true',
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      iss: `${PUBLIC_URL}/auth/api/v1/realms/${f.realm}`,
      sub: claims.sub,
      typ: 'Bearer',
      azp: 'svc-a',
      session_state: tokens.session_state,
      sid: tokens.session_state,
      preferred_username: 'service-account-svc-a',
      email_verified: 'false',
      realm_access: { roles: ['search:read', 'search:write'] },
      scope: tokens.scope,
      clientId: 'svc-a',
      clientHost: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      clientAddress: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      client_id: 'svc-a',
      username: 'service-account-svc-a',
      tenant_id: f.realm,
    });
    expect(body.exp).toBe(Math.floor(f.clock.now() / 1000) + 300);
    expect(body.iat).toBe(Math.floor(f.clock.now() / 1000));
  });

  it('answers a user token with its claims and without the service-account fields', async () => {
    const tokens = await userTokens(f);
    const body = await introspect(f, tokens.access_token);

    expect(Object.keys(body).sort()).toEqual([...USER_FIELDS].sort());
    expect(body).toMatchObject({
      active: 'true',
      typ: 'Bearer',
      azp: 'platform-login',
      client_id: 'platform-login',
      preferred_username: 'alice',
      username: 'alice',
      email_verified: 'false',
      realm_access: { roles: ['search:read'] },
      scope: 'openid profile email',
      session_state: tokens.session_state,
      sid: tokens.session_state,
      tenant_id: 'tenant-a',
    });
    expect(typeof body.exp).toBe('number');
    expect(typeof body.iat).toBe('number');
    expect(typeof body.jti).toBe('string');
    expect(typeof body.sub).toBe('string');
  });

  it('renders a verified email as the string "true"', async () => {
    // The admin API has no way to verify an email yet, so the user is put in the store directly.
    await f.core.store.users.insert({
      id: randomUUID(),
      realmId: f.realm,
      username: 'vera',
      passwordHash: await fastHasher.hash('vera password 1'),
      enabled: true,
      roles: [],
      tenantId: f.realm,
      email: 'vera@example.test',
      emailVerified: true,
      createdAt: f.clock.now(),
      version: 1,
    });
    const tokens = await userTokens(f, { username: 'vera', password: 'vera password 1' });
    const body = await introspect(f, tokens.access_token);
    expect(body).toMatchObject({ active: 'true', email_verified: 'true', username: 'vera' });
  });

  it('reads the request from the query string', async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).post(INTROSPECT).query({ realm: f.realm, token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: 'true', client_id: 'svc-a' });
  });

  it('reads the request from a JSON body', async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).post(INTROSPECT).send({ realm: f.realm, token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: 'true', client_id: 'svc-a' });
  });

  it('marks the answer as not cacheable', async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).post(INTROSPECT).query({ realm: f.realm, token: tokens.access_token });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('keeps a token active until its expiry', async () => {
    const g = await tokenFixture();
    const tokens = await clientTokens(g);
    g.clock.advance(299 * 1000);
    expect(await introspect(g, tokens.access_token)).toMatchObject({ active: 'true' });
  });
});

describe('POST /oauth/connect/introspect: anything else reads exactly {"active":"false"}', () => {
  let f: TokenFixture;
  let tokens: Tokens;
  beforeAll(async () => {
    f = await tokenFixture();
    tokens = await clientTokens(f);
  });

  it('answers a missing token as inactive', async () => {
    for (const res of [
      await request(f.app).post(INTROSPECT).query({ realm: f.realm }),
      await request(f.app).post(INTROSPECT).type('form').send({ realm: f.realm }),
      await request(f.app).post(INTROSPECT).send({ realm: f.realm }),
      await request(f.app).post(INTROSPECT).query({ realm: f.realm, token: '' }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(INACTIVE);
    }
  });

  it.each([
    ['random text', 'garbage'],
    ['three dots', '...'],
    ['a JWT-looking string of junk', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'],
    ['a header that is not JSON', `${base64url.encode('not json')}.e30.sig`],
    ['a very long string', 'a'.repeat(50_000)],
  ])('answers %s as inactive', async (_label, token) => {
    expect(await introspect(f, token)).toEqual(INACTIVE);
  });

  it('answers an expired token as inactive', async () => {
    const g = await tokenFixture();
    const t = await clientTokens(g);
    expect((await introspect(g, t.access_token)).active).toBe('true');
    g.clock.advance(301 * 1000);
    expect(await introspect(g, t.access_token)).toEqual(INACTIVE);
  });

  it('answers a token whose payload was changed (signature kept) as inactive', async () => {
    expect((await introspect(f, tokens.access_token)).active).toBe('true');
    const [header, , signature] = tokens.access_token.split('.');
    const claims = decodeJwt(tokens.access_token);
    const tampered = `${header}.${encodeJson({ ...claims, sub: randomUUID() })}.${signature}`;
    expect(await introspect(f, tampered)).toEqual(INACTIVE);
    const elevated = `${header}.${encodeJson({ ...claims, realm_access: { roles: ['admin'] } })}.${signature}`;
    expect(await introspect(f, elevated)).toEqual(INACTIVE);
  });

  it('answers an unsigned alg "none" token as inactive', async () => {
    const { kid } = decodeProtectedHeader(tokens.access_token);
    const claims = decodeJwt(tokens.access_token);
    const unsigned = `${encodeJson({ alg: 'none', typ: 'JWT', kid })}.${encodeJson(claims)}.`;
    expect(await introspect(f, unsigned)).toEqual(INACTIVE);
    const noneWithOldSignature = `${encodeJson({ alg: 'none', typ: 'JWT', kid })}.${tokens.access_token.split('.')[1]}.${tokens.access_token.split('.')[2]}`;
    expect(await introspect(f, noneWithOldSignature)).toEqual(INACTIVE);
  });

  it("answers an HS256 token keyed with the realm's public key as inactive", async () => {
    const jwks = (await request(f.app).get(certsPath(f.realm))).body as JSONWebKeySet;
    const { kid } = decodeProtectedHeader(tokens.access_token);
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    const pem = await exportSPKI((await importJWK(jwk, 'RS256')) as KeyLike);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    const secret = new TextEncoder().encode(pem);
    const forged = await new SignJWT(decodeJwt(tokens.access_token)).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid }).sign(secret);
    // A well-formed forgery: it verifies under the confused-key rules it exploits.
    await expect(jwtVerify(forged, secret, { currentDate: new Date(f.clock.now()) })).resolves.toBeDefined();
    expect(await introspect(f, forged)).toEqual(INACTIVE);
  });

  it("answers a token signed by a foreign RS256 key under the realm's kid as inactive", async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const { kid } = decodeProtectedHeader(tokens.access_token);
    const forged = await new SignJWT(decodeJwt(tokens.access_token)).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid }).sign(privateKey);
    await expect(jwtVerify(forged, publicKey, { currentDate: new Date(f.clock.now()) })).resolves.toBeDefined();
    expect(await introspect(f, forged)).toEqual(INACTIVE);
  });

  it('answers a token of the other realm as inactive in this realm', async () => {
    const other = await f.core.admin.createClient({ realm: f.otherRealm, clientId: 'svc-b' });
    const res = await request(f.app).post(TOKEN).query({ realm: f.otherRealm, client_id: 'svc-b', client_secret: other.client_secret });
    expect(res.status).toBe(200);
    expect(await introspect(f, res.body.access_token, f.otherRealm)).toMatchObject({ active: 'true', client_id: 'svc-b' });
    expect(await introspect(f, res.body.access_token, f.realm)).toEqual(INACTIVE);
    expect(await introspect(f, tokens.access_token, f.otherRealm)).toEqual(INACTIVE);
  });

  it('answers a refresh token as inactive', async () => {
    expect(await introspect(f, tokens.refresh_token)).toEqual(INACTIVE);
  });

  it('answers a token whose session was revoked as inactive', async () => {
    const t = await clientTokens(f);
    expect((await introspect(f, t.access_token)).active).toBe('true');
    const res = await request(f.app).post(REVOKE).type('form').send({ realm: f.realm, token: t.access_token });
    expect(res.status).toBe(200);
    expect(await introspect(f, t.access_token)).toEqual(INACTIVE);
  });

  it('answers a token of a user disabled after issue as inactive', async () => {
    const g = await tokenFixture();
    const t = await userTokens(g);
    expect((await introspect(g, t.access_token)).active).toBe('true');
    await g.core.admin.setUserEnabled(g.realm, 'alice', false);
    expect(await introspect(g, t.access_token)).toEqual(INACTIVE);
  });

  it('answers a token of a client disabled after issue as inactive', async () => {
    const g = await tokenFixture();
    const t = await clientTokens(g);
    expect((await introspect(g, t.access_token)).active).toBe('true');
    await g.core.admin.setClientEnabled(g.realm, 'svc-a', false);
    expect(await introspect(g, t.access_token)).toEqual(INACTIVE);
  });
});

describe('POST /oauth/connect/introspect: malformed requests', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('answers 422 naming realm when it is missing', async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).post(INTROSPECT).query({ token: tokens.access_token });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'realm'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 422 when realm is present but empty (it is mandatory, not defaulted)', async () => {
    const res = await request(f.app).post(INTROSPECT).type('form').send({ realm: '', token: 'x' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'realm'], msg: 'String should have at least 1 character', type: 'string_too_short' }],
    });
  });

  it('answers 422 for a JSON token that is not a string', async () => {
    const res = await request(f.app).post(INTROSPECT).send({ realm: f.realm, token: 42 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'token'], msg: 'Input should be a valid string', type: 'string_type' }] });
  });

  it('answers 404 realm_not_found for an unknown realm', async () => {
    const tokens = await clientTokens(f);
    for (const realm of [randomUUID(), 'not-a-realm']) {
      const res = await request(f.app).post(INTROSPECT).query({ realm, token: tokens.access_token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Realm not found', error: 'realm_not_found', error_description: 'Realm not found' });
    }
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(f.app).post(INTROSPECT).set('Content-Type', 'application/json').send('{"realm":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ detail: expect.any(String) });
  });
});

describe('POST /oauth/connect/revoke', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('ends the session when given the refresh token: its access token goes inactive and the refresh token stops working', async () => {
    const t = await clientTokens(f);
    const res = await request(f.app).post(REVOKE).query({ realm: f.realm, token: t.refresh_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'ok' });
    expect(await introspect(f, t.access_token)).toEqual(INACTIVE);
    const refresh = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, grant_type: 'refresh_token', refresh_token: t.refresh_token });
    expect(refresh.status).toBe(400);
    expect(refresh.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('accepts a JSON body and leaves other sessions active', async () => {
    const revoked = await userTokens(f);
    const kept = await userTokens(f);
    const res = await request(f.app).post(REVOKE).send({ realm: f.realm, token: revoked.access_token });
    expect(res.status).toBe(200);
    expect(await introspect(f, revoked.access_token)).toEqual(INACTIVE);
    expect(await introspect(f, kept.access_token)).toMatchObject({ active: 'true' });
  });

  it('answers 200 for an unknown, garbage or missing token', async () => {
    for (const token of [undefined, 'garbage', (await clientTokens(f)).access_token.replace(/.$/, 'x')]) {
      const res = await request(f.app)
        .post(REVOKE)
        .query({ realm: f.realm, ...(token ? { token } : {}) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ msg: 'ok' });
    }
  });

  it('ignores a token of another realm', async () => {
    const t = await clientTokens(f);
    const res = await request(f.app).post(REVOKE).query({ realm: f.otherRealm, token: t.access_token });
    expect(res.status).toBe(200);
    expect(await introspect(f, t.access_token)).toMatchObject({ active: 'true' });
  });

  it('answers 404 for an unknown realm', async () => {
    const res = await request(f.app).post(REVOKE).query({ realm: randomUUID(), token: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ detail: 'Realm not found', error: 'realm_not_found' });
  });
});

describe('JWKS and OIDC discovery', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it("publishes the realm's RS256 public key under the kid of its tokens, without private parts", async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).get(certsPath(f.realm));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const { kid } = decodeProtectedHeader(tokens.access_token);
    const key = (res.body as JSONWebKeySet).keys.find((k) => k.kid === kid);
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid, n: expect.any(String), e: expect.any(String) });
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(secret);
  });

  it('lets a token be verified offline with the published keys', async () => {
    const tokens = await clientTokens(f);
    const jwks = createLocalJWKSet((await request(f.app).get(certsPath(f.realm))).body as JSONWebKeySet);
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: `${PUBLIC_URL}/auth/api/v1/realms/${f.realm}`,
      algorithms: ['RS256'],
      currentDate: new Date(f.clock.now()),
    });
    expect(payload.azp).toBe('svc-a');
  });

  it('publishes a different key for each realm', async () => {
    const mine = (await request(f.app).get(certsPath(f.realm))).body as JSONWebKeySet;
    const other = (await request(f.app).get(certsPath(f.otherRealm))).body as JSONWebKeySet;
    expect(mine.keys.length).toBeGreaterThan(0);
    expect(other.keys.length).toBeGreaterThan(0);
    expect(other.keys.map((k) => k.kid)).not.toEqual(expect.arrayContaining(mine.keys.map((k) => k.kid)));
  });

  it("serves discovery whose issuer is the tokens' iss and whose endpoints point at this service", async () => {
    const tokens = await clientTokens(f);
    const res = await request(f.app).get(discoveryPath(f.realm));
    expect(res.status).toBe(200);
    expect(res.body.issuer).toBe(decodeJwt(tokens.access_token).iss);
    expect(res.body.jwks_uri).toBe(`${PUBLIC_URL}${certsPath(f.realm)}`);
    // The realm's own token endpoint (public clients too); the spec's path stays as it is.
    expect(res.body.token_endpoint).toBe(`${PUBLIC_URL}/auth/api/v1/realms/${f.realm}/protocol/openid-connect/token`);
    // RFC 7662's introspection (boolean active) at the realm's own path; the spec's path keeps its wire.
    expect(res.body.introspection_endpoint).toBe(`${PUBLIC_URL}/auth/api/v1/realms/${f.realm}/protocol/openid-connect/token/introspect`);
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'password', 'refresh_token']));
    expect(res.body.id_token_signing_alg_values_supported).toEqual(['RS256']);
  });

  it('serves a JWKS whose URL the discovery document names', async () => {
    const doc = (await request(f.app).get(discoveryPath(f.realm))).body as { jwks_uri: string };
    const res = await request(f.app).get(doc.jwks_uri.slice(PUBLIC_URL.length));
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
  });

  it('answers 404 realm_not_found for an unknown realm on both', async () => {
    for (const path of [certsPath(randomUUID()), discoveryPath(randomUUID()), certsPath('not-a-realm')]) {
      const res = await request(f.app).get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ detail: 'Realm not found', error: 'realm_not_found' });
    }
  });

  it('answers 400, not 500, for a realm path segment with a broken percent-escape', async () => {
    const res = await request(f.app).get('/auth/api/v1/realms/%E0%A4%A/protocol/openid-connect/certs');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ detail: expect.any(String) });
  });
});
