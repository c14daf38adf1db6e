import pino from 'pino';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';
import { tokenRest } from '../../rest/token';
import { tokenFixture, tokenSubgraph, PUBLIC_URL, type TokenFixture } from '../shared/helpers';

/**
 * One table of inputs, each sent to REST and to GraphQL: the same schema, rule and error decide
 * both answers. `kind` is what both must say: REST status and GraphQL extensions.code, plus the
 * reason (OAuth code or validation issue type) that both carry.
 */
type Outcome =
  { kind: 'ok' } | { kind: 'validation'; type: string; field: string } | { kind: 'error'; status: number; code: string; reason: string };

interface Case {
  name: string;
  rest: (f: TokenFixture) => { path: string; form: Record<string, string> };
  graphql: (f: TokenFixture) => { query: string; variables: Record<string, unknown> };
  expect: Outcome;
}

const TOKEN = '/auth/api/v1/oauth/connect/token';
const LOGIN = '/auth/api/v1/oauth/connect/user/login';
const INTROSPECT = '/auth/api/v1/oauth/connect/introspect';
const ISSUE = 'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }';
const LOG_IN = 'mutation($i: UserLoginInput!) { loginUser(input: $i) { accessToken } }';
const REFRESH = 'mutation($i: RefreshTokenInput!) { refreshToken(input: $i) { accessToken } }';
const UNKNOWN_REALM = '00000000-0000-4000-8000-000000000000';

const cases: Case[] = [
  {
    name: 'good client credentials',
    rest: (f) => ({ path: TOKEN, form: { realm: f.realm, ...f.client } }),
    graphql: (f) => ({
      query: ISSUE,
      variables: { i: { realm: f.realm, clientId: f.client.client_id, clientSecret: f.client.client_secret } },
    }),
    expect: { kind: 'ok' },
  },
  {
    name: 'a wrong client secret',
    rest: (f) => ({ path: TOKEN, form: { realm: f.realm, client_id: 'svc-a', client_secret: 'wrong' } }),
    graphql: (f) => ({ query: ISSUE, variables: { i: { realm: f.realm, clientId: 'svc-a', clientSecret: 'wrong' } } }),
    expect: { kind: 'error', status: 401, code: 'UNAUTHENTICATED', reason: 'invalid_client' },
  },
  {
    name: 'a realm that is not a UUID',
    rest: (f) => ({ path: TOKEN, form: { realm: 'main', ...f.client } }),
    graphql: (f) => ({
      query: ISSUE,
      variables: { i: { realm: 'main', clientId: f.client.client_id, clientSecret: f.client.client_secret } },
    }),
    expect: { kind: 'validation', type: 'uuid_parsing', field: 'realm' },
  },
  {
    name: 'an unknown realm',
    rest: (f) => ({ path: TOKEN, form: { realm: UNKNOWN_REALM, ...f.client } }),
    graphql: (f) => ({
      query: ISSUE,
      variables: { i: { realm: UNKNOWN_REALM, clientId: f.client.client_id, clientSecret: f.client.client_secret } },
    }),
    expect: { kind: 'error', status: 404, code: 'NOT_FOUND', reason: 'realm_not_found' },
  },
  {
    name: 'a scope the client may not have',
    rest: (f) => ({ path: TOKEN, form: { realm: f.realm, ...f.client, scopes: 'admin' } }),
    graphql: (f) => ({
      query: ISSUE,
      variables: { i: { realm: f.realm, clientId: f.client.client_id, clientSecret: f.client.client_secret, scopes: 'admin' } },
    }),
    expect: { kind: 'error', status: 400, code: 'BAD_USER_INPUT', reason: 'invalid_scope' },
  },
  {
    name: 'a wrong password',
    rest: (f) => ({ path: LOGIN, form: { realm: f.realm, username: 'alice', password: 'wrong password' } }),
    graphql: (f) => ({ query: LOG_IN, variables: { i: { realm: f.realm, username: 'alice', password: 'wrong password' } } }),
    expect: { kind: 'error', status: 401, code: 'UNAUTHENTICATED', reason: 'invalid_grant' },
  },
  {
    name: 'a garbage refresh token',
    rest: (f) => ({ path: LOGIN, form: { realm: f.realm, grant_type: 'refresh_token', refresh_token: 'garbage' } }),
    graphql: (f) => ({ query: REFRESH, variables: { i: { realm: f.realm, refreshToken: 'garbage' } } }),
    expect: { kind: 'error', status: 400, code: 'BAD_USER_INPUT', reason: 'invalid_grant' },
  },
  {
    name: 'an empty introspection realm',
    rest: () => ({ path: INTROSPECT, form: { realm: '', token: 'x' } }),
    graphql: () => ({ query: '{ introspectToken(token: "x", realm: "") { active } }', variables: {} }),
    expect: { kind: 'validation', type: 'string_too_short', field: 'realm' },
  },
];

describe('REST and GraphQL agree on every input of one table', () => {
  let f: TokenFixture;
  let gateway: Gateway;
  let app: ReturnType<typeof createRestApp>;

  beforeAll(async () => {
    f = await tokenFixture();
    const log = pino({ level: 'silent' });
    gateway = await createGateway({ supergraphSdl: readSupergraph(), targets: { token: { schema: tokenSubgraph(f).schema } }, log });
    app = createRestApp([tokenRest(f.core.service, PUBLIC_URL)], { log, extra: [{ path: '/', router: gateway.router }] });
  });
  afterAll(async () => {
    await gateway.stop();
    await f.core.close();
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = c.rest(f);
    const rest = await request(app).post(r.path).type('form').send(r.form);
    const g = c.graphql(f);
    const gql = await request(app).post('/graphql').set('content-type', 'application/json').send(g);
    const error = gql.body.errors?.[0]?.extensions;
    switch (c.expect.kind) {
      case 'ok':
        expect(rest.status).toBe(200);
        expect(gql.body.errors).toBeUndefined();
        break;
      case 'validation':
        expect(rest.status).toBe(422);
        expect(rest.body.detail).toEqual([expect.objectContaining({ type: c.expect.type, loc: [expect.any(String), c.expect.field] })]);
        expect(error).toMatchObject({ code: 'BAD_USER_INPUT', issues: [expect.objectContaining({ type: c.expect.type })] });
        expect(error.issues[0].loc.at(-1)).toBe(c.expect.field);
        break;
      default:
        expect(rest.status).toBe(c.expect.status);
        expect(rest.body.error).toBe(c.expect.reason);
        expect(error).toMatchObject({ code: c.expect.code, reason: c.expect.reason });
        expect(gql.body.errors[0].message).toBe(rest.body.detail);
    }
  });
});
