import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

const TOKEN = '/auth/api/v1/oauth/connect/token';
const LOGIN = '/auth/api/v1/oauth/connect/user/login';
const INTROSPECT = '/auth/api/v1/oauth/connect/introspect';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const TOKEN_RESPONSE_FIELDS = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'not-before-policy',
  'session_state',
  'scope',
].sort();

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const issuerOf = (realm: string) => `${PUBLIC_URL}/auth/api/v1/realms/${realm}`;

/** The spec's token response: exactly its eight fields, with their types and the default lifetimes. */
function expectTokenResponse(res: request.Response) {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = res.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(TOKEN_RESPONSE_FIELDS);
  expect(body.access_token).toEqual(expect.stringMatching(JWT));
  expect(body.refresh_token).toEqual(expect.stringMatching(JWT));
  expect(body.token_type).toBe('Bearer');
  expect(body.expires_in).toBe(300);
  expect(body.refresh_expires_in).toBe(1800);
  expect(Number.isInteger(body['not-before-policy'])).toBe(true);
  expect(body.session_state).toEqual(expect.stringMatching(UUID));
  expect(typeof body.scope).toBe('string');
}

async function introspect(f: TokenFixture, token: string, realm = f.realm) {
  const res = await request(f.app).post(INTROSPECT).type('form').send({ realm, token });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

describe('POST /oauth/connect/token (client credentials)', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('issues a token response from query parameters', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ realm: f.realm, ...f.client });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid profile email search');
  });

  it('issues a token response from a form body', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .type('form')
      .send({ realm: f.realm, ...f.client });
    expectTokenResponse(res);
  });

  it('issues a token response from a JSON body', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .send({ realm: f.realm, ...f.client });
    expectTokenResponse(res);
  });

  it('accepts client credentials as HTTP Basic authentication', async () => {
    const res = await request(f.app).post(TOKEN).set('Authorization', basic(f.client.client_id, f.client.client_secret));
    expectTokenResponse(res);
    expect(decodeJwt(res.body.access_token).azp).toBe('svc-a');
  });

  it('lets query parameters win over the body', async () => {
    const res = await request(f.app).post(TOKEN).query({ client_secret: 'wrong-secret-wrong-secret' }).send(f.client);
    expect(res.status).toBe(401);
  });

  it('uses the default realm when realm is absent', async () => {
    const res = await request(f.app).post(TOKEN).query(f.client);
    expectTokenResponse(res);
    expect(decodeJwt(res.body.access_token).iss).toBe(issuerOf(f.realm));
  });

  it('signs an RS256 JWT with a kid, issued by the realm, for the client service account', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ realm: f.realm, ...f.client });
    const header = decodeProtectedHeader(res.body.access_token);
    expect(header.alg).toBe('RS256');
    expect(header.kid).toEqual(expect.any(String));
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({
      iss: issuerOf(f.realm),
      typ: 'Bearer',
      azp: 'svc-a',
      sid: res.body.session_state,
      session_state: res.body.session_state,
      scope: res.body.scope,
      preferred_username: 'service-account-svc-a',
      clientId: 'svc-a',
      realm_access: { roles: ['search:read', 'search:write'] },
    });
    expect(claims.exp! - claims.iat!).toBe(300);
  });

  it('grants the requested space-separated scopes only', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, scopes: 'openid search' });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid search');
    expect(decodeJwt(res.body.access_token).scope).toBe('openid search');
  });

  it('accepts comma-separated scopes and answers them space-separated', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, scopes: 'openid,email, search' });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid email search');
  });

  it('refuses a scope the client may not have with 400 invalid_scope', async () => {
    for (const scopes of ['admin', 'openid admin', 'search,offline_access']) {
      const res = await request(f.app)
        .post(TOKEN)
        .query({ ...f.client, scopes });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_scope', detail: expect.any(String), error_description: expect.any(String) });
    }
  });

  it('defaults grant_type to client_credentials and accepts it spelled out', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, grant_type: 'client_credentials' });
    expectTokenResponse(res);
  });

  it('answers 400 unsupported_grant_type for any other grant_type', async () => {
    for (const grant_type of ['urn:ietf:params:oauth:grant-type:device_code', 'implicit', 'x'.repeat(500)]) {
      const res = await request(f.app)
        .post(TOKEN)
        .query({ ...f.client, grant_type });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ error: 'unsupported_grant_type', detail: expect.any(String) });
    }
  });

  it('answers 422 naming client_id and client_secret when both are missing', async () => {
    const res = await request(f.app).post(TOKEN);
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(2);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['query', 'client_id'], msg: 'Field required', type: 'missing' },
        { loc: ['query', 'client_secret'], msg: 'Field required', type: 'missing' },
      ]),
    );
  });

  it('answers 422 naming only the missing parameter', async () => {
    const res = await request(f.app).post(TOKEN).query({ client_id: 'svc-a' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'client_secret'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 422 uuid_parsing for a realm that is not a UUID', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, realm: 'not-a-uuid' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'realm'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] });
  });

  it('answers 422 string_type located in the body for a JSON number where a string belongs', async () => {
    const res = await request(f.app).post(TOKEN).send({ client_id: 123, client_secret: f.client.client_secret });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'client_id'], msg: 'Input should be a valid string', type: 'string_type' }] });
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(f.app).post(TOKEN).set('Content-Type', 'application/json').send('{"client_id": "svc-a",');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ detail: expect.any(String), error: 'invalid_request' });
  });

  it('answers 404 realm_not_found for an unknown realm', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, realm: randomUUID() });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'Realm not found', error: 'realm_not_found', error_description: 'Realm not found' });
  });

  it('does not find a client of one realm in another realm', async () => {
    const res = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, realm: f.otherRealm });
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Authentication failed');
  });
});

describe('POST /oauth/connect/user/login (password)', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  it('issues a token response from query parameters', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ realm: f.realm, ...f.user });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid profile email');
    expect(decodeJwt(res.body.access_token)).toMatchObject({
      iss: issuerOf(f.realm),
      typ: 'Bearer',
      preferred_username: 'alice',
      tenant_id: 'tenant-a',
      realm_access: { roles: ['search:read'] },
    });
  });

  it('issues a token response from a form body', async () => {
    expectTokenResponse(
      await request(f.app)
        .post(LOGIN)
        .type('form')
        .send({ realm: f.realm, ...f.user }),
    );
  });

  it('issues a token response from a JSON body', async () => {
    expectTokenResponse(
      await request(f.app)
        .post(LOGIN)
        .send({ realm: f.realm, ...f.user }),
    );
  });

  it('uses the default realm when realm is absent', async () => {
    const res = await request(f.app).post(LOGIN).query(f.user);
    expectTokenResponse(res);
    expect(decodeJwt(res.body.access_token).iss).toBe(issuerOf(f.realm));
  });

  it('carries no client service-account claims in a user token', async () => {
    const res = await request(f.app).post(LOGIN).query(f.user);
    const claims = decodeJwt(res.body.access_token);
    expect(claims).not.toHaveProperty('clientId');
    expect(claims).not.toHaveProperty('clientHost');
    expect(claims).not.toHaveProperty('clientAddress');
  });

  it("logs a user in through a named confidential client, with that client's scopes", async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, ...f.client, scopes: 'openid search' });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid search');
    expect(decodeJwt(res.body.access_token)).toMatchObject({ azp: 'svc-a', preferred_username: 'alice' });
  });

  it('accepts comma-separated scopes', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, scopes: 'openid,email' });
    expectTokenResponse(res);
    expect(res.body.scope).toBe('openid email');
  });

  it('refuses a scope the login client may not have with 400 invalid_scope', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, scopes: 'openid search' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_scope' });
  });

  it('answers 400 unsupported_grant_type for a grant other than password or refresh_token', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, grant_type: 'client_credentials' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers 422 naming username and password when both are missing', async () => {
    const res = await request(f.app).post(LOGIN);
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(2);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['query', 'username'], msg: 'Field required', type: 'missing' },
        { loc: ['query', 'password'], msg: 'Field required', type: 'missing' },
      ]),
    );
  });

  it('answers 422 naming the password alone when only it is missing', async () => {
    const res = await request(f.app).post(LOGIN).send({ username: 'alice' });
    expect(res.status).toBe(422);
    // Missing from a JSON body: located in the body, where the caller put the other fields.
    expect(res.body).toEqual({ detail: [{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }] });
    const q = await request(f.app).post(LOGIN).query({ username: 'alice' });
    expect(q.body).toEqual({ detail: [{ loc: ['query', 'password'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers 422 uuid_parsing for a realm that is not a UUID', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, realm: '1234' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'realm'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }] });
  });

  it('answers 422 located in the body for a JSON body with wrongly typed fields', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .send({ username: ['alice', 42], password: { p: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'username'], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'password'], msg: 'Input should be a valid string', type: 'string_type' },
      ]),
    );
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(f.app).post(LOGIN).set('Content-Type', 'application/json').send('{username: alice}');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ detail: expect.any(String) });
  });

  it('answers 404 realm_not_found for an unknown realm', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .query({ ...f.user, realm: randomUUID() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Realm not found', error: 'realm_not_found', error_description: 'Realm not found' });
  });
});

describe('refresh_token grant with rotation', () => {
  // Every test opens its own sessions, so one fixture serves them all.
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  const clientToken = async () => (await request(f.app).post(TOKEN).query(f.client)).body as Record<string, string>;
  const refreshAsClient = (refresh_token: string, extra: Record<string, string> = {}) =>
    request(f.app)
      .post(TOKEN)
      .query({ ...f.client, grant_type: 'refresh_token', refresh_token, ...extra });

  it('exchanges a refresh token for new tokens in the same session', async () => {
    const first = await clientToken();
    const res = await refreshAsClient(first.refresh_token);
    expectTokenResponse(res);
    expect(res.body.session_state).toBe(first.session_state);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect(res.body.access_token).not.toBe(first.access_token);
    expect((await introspect(f, res.body.access_token)).active).toBe('true');
  });

  it('accepts the refresh grant as a form body and with HTTP Basic client authentication', async () => {
    const first = await clientToken();
    const res = await request(f.app)
      .post(TOKEN)
      .set('Authorization', basic(f.client.client_id, f.client.client_secret))
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expectTokenResponse(res);
  });

  it('refuses a used refresh token the second time and then ends the whole session', async () => {
    const first = await clientToken();
    const second = await refreshAsClient(first.refresh_token);
    expect(second.status).toBe(200);

    const replay = await refreshAsClient(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant' });

    expect(await introspect(f, second.body.access_token)).toEqual({ active: 'false' });
    expect(await introspect(f, first.access_token)).toEqual({ active: 'false' });
    const next = await refreshAsClient(second.body.refresh_token);
    expect(next.status).toBe(400);
    expect(next.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('narrows the scopes on refresh but never widens them', async () => {
    const first = (
      await request(f.app)
        .post(TOKEN)
        .query({ ...f.client, scopes: 'openid search' })
    ).body;
    const narrowed = await refreshAsClient(first.refresh_token, { scopes: 'search' });
    expectTokenResponse(narrowed);
    expect(narrowed.body.scope).toBe('search');
    const widened = await refreshAsClient(narrowed.body.refresh_token, { scopes: 'openid email' });
    expect(widened.status).toBe(400);
    expect(widened.body).toMatchObject({ error: 'invalid_scope' });
  });

  it('refuses an access token presented as a refresh token', async () => {
    const first = await clientToken();
    const res = await refreshAsClient(first.access_token);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a refresh token issued to another client', async () => {
    const login = (await request(f.app).post(LOGIN).query(f.user)).body;
    const res = await refreshAsClient(login.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a garbage refresh token and a missing one with 400', async () => {
    const garbage = await refreshAsClient('not.a.token');
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({ error: 'invalid_grant' });
    const missing = await request(f.app)
      .post(TOKEN)
      .query({ ...f.client, grant_type: 'refresh_token' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ detail: [{ loc: ['query', 'refresh_token'], msg: 'Field required', type: 'missing' }] });
  });

  it('refuses a refresh token after its lifetime', async () => {
    const g = await tokenFixture();
    const first = (await request(g.app).post(TOKEN).query(g.client)).body;
    g.clock.advance(1801 * 1000);
    const res = await request(g.app)
      .post(TOKEN)
      .query({ ...g.client, grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_grant' });
  });

  it("rotates a user's refresh token at the login endpoint and ends the session on reuse", async () => {
    const first = (await request(f.app).post(LOGIN).query(f.user)).body;
    const second = await request(f.app).post(LOGIN).query({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expectTokenResponse(second);
    expect(second.body.session_state).toBe(first.session_state);
    expect(decodeJwt(second.body.access_token).preferred_username).toBe('alice');

    const replay = await request(f.app).post(LOGIN).query({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant' });
    expect(await introspect(f, second.body.access_token)).toEqual({ active: 'false' });
  });

  it("answers 422 naming refresh_token when the login endpoint's refresh grant lacks it", async () => {
    const res = await request(f.app).post(LOGIN).query({ grant_type: 'refresh_token' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['query', 'refresh_token'], msg: 'Field required', type: 'missing' }] });
  });
});

describe('authentication failures', () => {
  // Tests that disable an account enable it again before they end.
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  const clientFailure = (query: Record<string, string>) => request(f.app).post(TOKEN).query(query);
  const userFailure = (query: Record<string, string>) => request(f.app).post(LOGIN).query(query);

  it("answers the token endpoint's client failures with 401 and one identical body", async () => {
    const wrongSecret = await clientFailure({ client_id: 'svc-a', client_secret: 'not-the-secret-at-all' });
    const unknownClient = await clientFailure({ client_id: 'svc-nobody', client_secret: f.client.client_secret });
    const basicWrong = await request(f.app).post(TOKEN).set('Authorization', basic('svc-a', 'nope'));
    await f.core.admin.setClientEnabled(f.realm, 'svc-a', false);
    let disabledClient: request.Response;
    try {
      disabledClient = await clientFailure(f.client);
    } finally {
      await f.core.admin.setClientEnabled(f.realm, 'svc-a', true);
    }

    for (const res of [wrongSecret, unknownClient, basicWrong, disabledClient]) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(wrongSecret.body);
    }
    expect(wrongSecret.body).toMatchObject({ detail: 'Authentication failed', error: 'invalid_client' });
  });

  it("answers the login endpoint's user failures with 401 and one identical body", async () => {
    const wrongPassword = await userFailure({ username: 'alice', password: 'not the password' });
    const unknownUser = await userFailure({ username: 'mallory', password: f.user.password });
    await f.core.admin.setUserEnabled(f.realm, 'alice', false);
    let disabledUser: request.Response;
    try {
      disabledUser = await userFailure(f.user);
    } finally {
      await f.core.admin.setUserEnabled(f.realm, 'alice', true);
    }

    for (const res of [wrongPassword, unknownUser, disabledUser]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(wrongPassword.body);
    }
    expect(wrongPassword.body).toMatchObject({ detail: 'Authentication failed', error: 'invalid_grant' });
  });

  it('uses the same detail for client and user failures, naming neither the account nor the reason', async () => {
    const client = await clientFailure({ client_id: 'svc-nobody', client_secret: 'x' });
    const user = await userFailure({ username: 'mallory', password: 'x' });
    expect(client.body.detail).toBe(user.body.detail);
    for (const body of [client.body, user.body]) {
      expect(JSON.stringify(body)).not.toMatch(/svc-nobody|mallory|unknown|disabled|password|secret/i);
    }
  });

  it('lets a re-enabled user and client authenticate again', async () => {
    await f.core.admin.setUserEnabled(f.realm, 'alice', false);
    await f.core.admin.setClientEnabled(f.realm, 'svc-a', false);
    expect((await userFailure(f.user)).status).toBe(401);
    expect((await clientFailure(f.client)).status).toBe(401);
    await f.core.admin.setUserEnabled(f.realm, 'alice', true);
    await f.core.admin.setClientEnabled(f.realm, 'svc-a', true);
    expectTokenResponse(await request(f.app).post(LOGIN).query(f.user));
    expectTokenResponse(await request(f.app).post(TOKEN).query(f.client));
  });
});

describe('lockout after repeated wrong passwords', () => {
  const login = (f: TokenFixture, password: string) => request(f.app).post(LOGIN).query({ username: 'alice', password });

  it('refuses even the right password from an address after five wrong ones from it (default policy)', async () => {
    const f = await tokenFixture();
    for (let i = 0; i < 5; i++) expect((await login(f, `wrong-${i}`)).status).toBe(401);
    const res = await login(f, f.user.password);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication failed', error: 'invalid_grant', error_description: 'Authentication failed' });
  });

  it('lets one of 50 parallel refreshes with the same token through at most, and never two', async () => {
    const f = await tokenFixture();
    const t = (await login(f, f.user.password)).body as { refresh_token: string; access_token: string };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => request(f.app).post(LOGIN).query({ grant_type: 'refresh_token', refresh_token: t.refresh_token })),
    );
    const ok = answers.filter((r) => r.status === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error === 'invalid_grant')).toBe(true);
    // The replays ended the session (reuse detection): whatever was issued reads inactive.
    for (const r of ok) {
      const seen = await request(f.app)
        .post('/auth/api/v1/oauth/connect/introspect')
        .type('form')
        .send({ realm: f.realm, token: r.body.access_token });
      expect(seen.body).toEqual({ active: 'false' });
    }
  });

  it('counts 20 wrong passwords sent in parallel from one address, so they lock the user for that address (not 2 of them); another address signs in', async () => {
    const f = await tokenFixture({ trustProxy: ['loopback'] });
    const from = (address: string, password: string) => login(f, password).set('x-forwarded-for', address);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => from('198.51.100.20', `wrong-${i}`)));
    expect(answers.every((r) => r.status === 401)).toBe(true);
    expect((await from('198.51.100.20', f.user.password)).status).toBe(401);
    expect((await f.core.admin.listUsers(f.realm)).find((u) => u.username === 'alice')?.locked).toBe(false);
    expectTokenResponse(await from('198.51.100.21', f.user.password));
  });

  it('lets the right password in again once the lockout has passed', async () => {
    const f = await tokenFixture({ lockout: { threshold: 3, seconds: 60 } });
    const wrong = await login(f, 'wrong-0');
    for (let i = 1; i < 3; i++) expect((await login(f, `wrong-${i}`)).status).toBe(401);
    const locked = await login(f, f.user.password);
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual(wrong.body);

    f.clock.advance(30 * 1000);
    expect((await login(f, f.user.password)).status).toBe(401);

    f.clock.advance(31 * 1000);
    expectTokenResponse(await login(f, f.user.password));
  });

  it('does not lock out below the threshold, and a success resets the count', async () => {
    const f = await tokenFixture({ lockout: { threshold: 3, seconds: 60 } });
    for (let i = 0; i < 2; i++) expect((await login(f, `wrong-${i}`)).status).toBe(401);
    expectTokenResponse(await login(f, f.user.password));
    for (let i = 0; i < 2; i++) expect((await login(f, `wrong-again-${i}`)).status).toBe(401);
    expectTokenResponse(await login(f, f.user.password));
  });

  it('locks only the user who failed', async () => {
    const f = await tokenFixture({ lockout: { threshold: 3, seconds: 60 } });
    await f.core.admin.createUser({ realm: f.realm, username: 'bob', password: 'bob password 123' });
    for (let i = 0; i < 3; i++) await login(f, `wrong-${i}`);
    expect((await login(f, f.user.password)).status).toBe(401);
    expectTokenResponse(await request(f.app).post(LOGIN).query({ username: 'bob', password: 'bob password 123' }));
  });
});

describe('request limits', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture({ bodyLimitBytes: 1024 });
  });

  it('answers 413 for a JSON body over the configured limit, and serves one under it', async () => {
    const big = await request(f.app)
      .post(TOKEN)
      .send({ ...f.client, scopes: 'openid '.repeat(300) });
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toMatch(/^application\/json/);
    expect(big.body).toMatchObject({ detail: expect.any(String) });
    expectTokenResponse(await request(f.app).post(TOKEN).send(f.client));
  });

  it('answers 413 for a form body over the configured limit', async () => {
    const res = await request(f.app)
      .post(LOGIN)
      .type('form')
      .send({ ...f.user, scopes: 'x'.repeat(2000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ detail: expect.any(String) });
  });
});

describe('odd input never yields a server error', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  const json = (path: string, raw: string) => request(f.app).post(path).set('Content-Type', 'application/json').send(raw);

  it.each([
    ['JSON null', () => json(TOKEN, 'null')],
    ['a JSON array', () => json(LOGIN, '[{"username":"alice"}]')],
    ['a JSON string', () => json(TOKEN, '"client_id"')],
    ['a JSON __proto__ key', () => json(TOKEN, '{"__proto__":{"client_id":"svc-a"},"constructor":{"prototype":1}}')],
    ['nested objects as values', () => json(TOKEN, '{"client_id":{"a":{"b":[1,2]}},"client_secret":null,"realm":{}}')],
    ['booleans as values', () => json(LOGIN, '{"username":true,"password":false,"grant_type":false}')],
    ['a repeated query key', () => request(f.app).post(`${TOKEN}?client_id=a&client_id=b&client_secret=c&client_secret=d`)],
    ['broken percent-escapes in the query', () => request(f.app).post(`${TOKEN}?client_id=%E0%A4%A&client_secret=%ZZ`)],
    [
      'an empty realm',
      () =>
        request(f.app)
          .post(TOKEN)
          .query({ ...f.client, realm: '' }),
    ],
    ['HTTP Basic that is not base64', () => request(f.app).post(TOKEN).set('Authorization', 'Basic %%%')],
    [
      'HTTP Basic without a colon',
      () =>
        request(f.app)
          .post(TOKEN)
          .set('Authorization', `Basic ${Buffer.from('svc-a').toString('base64')}`),
    ],
    ['HTTP Basic with broken percent-escapes', () => request(f.app).post(TOKEN).set('Authorization', basic('svc-a', '%E0%A4%A'))],
    [
      'a corrupt gzip body',
      () => request(f.app).post(TOKEN).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('not gzip at all'),
    ],
    [
      'an unknown content encoding',
      () => request(f.app).post(TOKEN).set('Content-Type', 'application/json').set('Content-Encoding', 'zstd-x').send('{}'),
    ],
    ['an unknown charset', () => request(f.app).post(TOKEN).set('Content-Type', 'application/json; charset=klingon').send('{}')],
    ['a text/plain body', () => request(f.app).post(LOGIN).set('Content-Type', 'text/plain').send('username=alice')],
    [
      'too many form fields',
      () =>
        request(f.app)
          .post(TOKEN)
          .type('form')
          .send(Array.from({ length: 500 }, (_, i) => `k${i}=v`).join('&')),
    ],
    [
      'a very long username',
      () =>
        request(f.app)
          .post(LOGIN)
          .send({ username: 'a'.repeat(100_000), password: 'x' }),
    ],
    ['control characters in the password', () => request(f.app).post(LOGIN).send({ username: 'alice', password: '\u0000\u0001\uffff' })],
  ])('answers %s with a JSON client error', async (_label, send) => {
    const res = await send();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toHaveProperty('detail');
  });
});
