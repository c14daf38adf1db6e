import request from 'supertest';
import pino from 'pino';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';
import { tokenRest } from '../../rest/token';
import { tokenFixture, tokenSubgraph, PUBLIC_URL, type TokenFixture } from '../shared/helpers';

const log = pino({ level: 'silent' });

describe('the federated graph with the token subgraph in process', () => {
  let fx: TokenFixture;
  let gateway: Gateway;
  let app: ReturnType<typeof createRestApp>;

  beforeAll(async () => {
    fx = await tokenFixture();
    gateway = await createGateway({ supergraphSdl: readSupergraph(), targets: { token: { schema: tokenSubgraph(fx).schema } }, log });
    app = createRestApp([tokenRest(fx.core.service, PUBLIC_URL)], { log, extra: [{ path: '/', router: gateway.router }] });
  });
  afterAll(async () => {
    await gateway.stop();
    await fx.core.close();
  });

  const gql = (query: string, variables: Record<string, unknown> = {}) =>
    request(app).post('/graphql').set('content-type', 'application/json').send({ query, variables });

  it('issues a client token, introspects it and resolves its realm through one endpoint', async () => {
    const issued = await gql(
      'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken tokenType expiresIn refreshExpiresIn scope sessionState } }',
      { i: { realm: fx.realm, clientId: fx.client.client_id, clientSecret: fx.client.client_secret } },
    );
    expect(issued.status).toBe(200);
    expect(issued.body.errors).toBeUndefined();
    const pair = issued.body.data.issueClientToken;
    expect(pair).toMatchObject({ tokenType: 'Bearer', expiresIn: 300, refreshExpiresIn: 1800 });

    const seen = await gql(
      'query($t: String!, $r: ID!) { introspectToken(token: $t, realm: $r) { active clientId roles tenantId sessionState expiresAt realm { id name issuer } } }',
      { t: pair.accessToken, r: fx.realm },
    );
    expect(seen.body.errors).toBeUndefined();
    expect(seen.body.data.introspectToken).toMatchObject({
      active: true,
      clientId: 'svc-a',
      roles: ['search:read', 'search:write'],
      sessionState: pair.sessionState,
      realm: { id: fx.realm, name: 'main', issuer: `${PUBLIC_URL}/auth/api/v1/realms/${fx.realm}` },
    });
    expect(new Date(seen.body.data.introspectToken.expiresAt).getTime()).toBeGreaterThan(fx.clock.now());
  });

  it('logs a user in, refreshes with rotation and revokes', async () => {
    const login = await gql('mutation($i: UserLoginInput!) { loginUser(input: $i) { accessToken refreshToken } }', {
      i: { realm: fx.realm, username: fx.user.username, password: fx.user.password },
    });
    expect(login.body.errors).toBeUndefined();
    const { refreshToken } = login.body.data.loginUser;
    const refreshed = await gql('mutation($i: RefreshTokenInput!) { refreshToken(input: $i) { accessToken refreshToken } }', {
      i: { realm: fx.realm, refreshToken },
    });
    expect(refreshed.body.errors).toBeUndefined();
    const again = await gql('mutation($i: RefreshTokenInput!) { refreshToken(input: $i) { accessToken } }', {
      i: { realm: fx.realm, refreshToken },
    });
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'invalid_grant' });

    const access = refreshed.body.data.refreshToken.accessToken;
    const revoked = await gql('mutation($t: String!, $r: ID) { revokeToken(token: $t, realm: $r) }', { t: access, r: fx.realm });
    expect(revoked.body.data.revokeToken).toBe(true);
    const seen = await gql('query($t: String!, $r: ID!) { introspectToken(token: $t, realm: $r) { active roles clientId } }', {
      t: access,
      r: fx.realm,
    });
    expect(seen.body.data.introspectToken).toEqual({ active: false, roles: [], clientId: null });
  });

  it('answers errors with the platform codes and never a stack trace', async () => {
    const bad = await gql('mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }', {
      i: { realm: fx.realm, clientId: fx.client.client_id, clientSecret: 'wrong' },
    });
    expect(bad.body.errors[0].message).toBe('Authentication failed');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'invalid_client' });
    expect(JSON.stringify(bad.body)).not.toMatch(/stacktrace|at .*\.ts/);

    const missing = await gql('{ realm(id: "00000000-0000-4000-8000-000000000000") { id } }');
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const scope = await gql('mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }', {
      i: { clientId: fx.client.client_id, clientSecret: fx.client.client_secret, realm: fx.realm, scopes: 'admin' },
    });
    expect(scope.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'invalid_scope' });

    const noRealm = await gql('{ introspectToken(token: "x", realm: "") { active } }');
    // The same schema and reason as REST's 422: an empty realm is too short.
    expect(noRealm.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [{ loc: ['realm'], type: 'string_too_short' }],
    });

    const invalid = await gql('{ nope }');
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers an unreadable body the GraphQL way', async () => {
    const res = await request(app).post('/graphql').set('content-type', 'application/json').send('{"query": ');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('serves Apollo Sandbox to browsers at /graphql', async () => {
    const page = await request(app).get('/graphql').set('accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/sandbox/i);
  });
});
