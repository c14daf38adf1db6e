import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { fastPath } from '../../gateway/fast-path';
import { InProcessDataSource } from '../../gateway/local-source';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { formatGraphQLError } from '../../edge/graphql/errors';
import { createRestApp } from '../../rest/shared/app';
import { operationTelemetry } from '../../gateway/operation-telemetry';
import { tokenFixture, tokenSubgraph, type TokenFixture } from '../shared/helpers';

const log = pino({ level: 'silent' });

/** Requests with what they send: the JSON body and the headers besides content-type. */
type Sent = { body: unknown; headers?: Record<string, string> };

const REALM = '{ realm { id name issuer jwksUri } }';

describe("the gateway's fast path", () => {
  let fx: TokenFixture;
  let fast: Gateway;
  let apollo: Gateway;
  let apps: { fast: express.Express; apollo: express.Express };

  beforeAll(async () => {
    fx = await tokenFixture();
    const targets = { token: { schema: tokenSubgraph(fx).schema } };
    fast = await createGateway({ supergraphSdl: readSupergraph(), targets, log });
    apollo = await createGateway({ supergraphSdl: readSupergraph(), targets, log, fastPath: false });
    const app = (g: Gateway) => createRestApp([], { log, extra: [{ path: '/', router: g.router }] });
    apps = { fast: app(fast), apollo: app(apollo) };
  });
  afterAll(async () => {
    await fast.stop();
    await apollo.stop();
    await fx.core.close();
  });

  const send = (app: express.Express, { body, headers = {} }: Sent) => {
    const r = request(app).post('/graphql').set('content-type', 'application/json');
    for (const [k, v] of Object.entries(headers)) r.set(k, v);
    return r.send(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const cases: [string, Sent][] = [
    ['a one-subgraph query', { body: { query: REALM } }],
    [
      'a named query with variables',
      { body: { query: 'query R($id: ID) { realm(id: $id) { id name } }', variables: { id: null }, operationName: 'R' } },
    ],
    [
      'one operation of several, by name',
      { body: { query: 'query A { realm { id } } query B { realm { name __typename } }', operationName: 'B' } },
    ],
    ['fragments', { body: { query: 'query { realm { ...F } } fragment F on Realm { id issuer }' } }],
    [
      'a field error with partial data',
      { body: { query: 'query($id: ID) { realm(id: $id) { id } }', variables: { id: 'no-such-realm' } } },
    ],
    ['a caller refused (no credentials)', { body: { query: '{ viewer { username } }' } }],
    ['variables that do not coerce', { body: { query: 'query($id: ID) { realm(id: $id) { id } }', variables: { id: { a: 1 } } } }],
    ['an invalid document', { body: { query: '{ realm { nope } }' } }],
    ['a syntax error', { body: { query: '{ realm { id ' } }],
    ['an unknown operation name', { body: { query: REALM, operationName: 'Other' } }],
    ['a directive', { body: { query: 'query($s: Boolean!) { realm { id name @skip(if: $s) } }', variables: { s: true } } }],
    ['introspection', { body: { query: '{ __schema { queryType { name } } }' } }],
    ['a mutation', { body: { query: 'mutation { revokeToken(token: "x") }' } }],
    ['Accept: application/graphql-response+json', { body: { query: REALM }, headers: { accept: 'application/graphql-response+json' } }],
    ['a persisted query hash', { body: { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } } }],
  ];

  it.each(cases)('answers %s exactly as Apollo Server does: status, headers and body', async (_name, sent) => {
    const [a, b] = [await send(apps.fast, sent), await send(apps.apollo, sent)];
    const seen = (r: typeof a) => ({
      status: r.status,
      type: r.get('content-type'),
      cache: r.get('cache-control'),
      vary: r.get('vary'),
      length: r.get('content-length'),
      etag: r.get('etag'),
      body: r.text,
    });
    expect(seen(a)).toEqual(seen(b));
  });

  it('answers the same again once the document is remembered', async () => {
    for (let i = 0; i < 3; i++) {
      const [a, b] = [await send(apps.fast, cases[0][1]), await send(apps.apollo, cases[0][1])];
      expect(a.text).toBe(b.text);
      expect(a.body.data.realm.jwksUri).toMatch(/\/protocol\/openid-connect\/certs$/);
    }
  });
});

describe('which requests the fast path answers itself', () => {
  let fx: TokenFixture;
  let app: express.Express;

  let planner: ReturnType<typeof apolloPlanner>;
  let dataSources: Record<string, InProcessDataSource>;
  const appWith = (room: { maxDocuments?: number; maxBytes?: number } = {}) => {
    const handler = fastPath({
      planner,
      dataSources,
      plugins: [operationTelemetry().plugin],
      formatError: (f, e) => formatGraphQLError(f, e, log),
      log,
      ...room,
    });
    const a = express();
    a.use(express.json(), handler, (_req, res) => void res.status(418).json({ passed: true }));
    return a;
  };

  beforeAll(async () => {
    fx = await tokenFixture();
    planner = apolloPlanner(readSupergraph(), log);
    dataSources = { token: new InProcessDataSource(tokenSubgraph(fx).schema) };
    app = appWith();
  });
  afterAll(() => fx.core.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    request(app)
      .post('/graphql')
      .set({ 'content-type': 'application/json', ...headers })
      .send(JSON.stringify(body));

  it('answers plain queries, with or without variables and operation name', async () => {
    for (const body of [
      { query: REALM },
      { query: 'query R($id: ID) { realm(id: $id) { id } }', variables: { id: null }, operationName: 'R' },
      { query: 'query($id: ID) { realm(id: $id) { id } }', variables: { id: 'no-such-realm' } },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(200);
      expect(res.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body.data).toHaveProperty('realm');
    }
  });

  it('leaves to Apollo Server whatever it does not answer the same way itself', async () => {
    const passed = [
      await post({ query: 'mutation { revokeToken(token: "x") }' }),
      await post({ query: '{ __schema { queryType { name } } }' }),
      await post({ query: '{ __type(name: "Realm") { name } }' }),
      await post({ query: 'query($s: Boolean!) { realm { id @include(if: $s) } }', variables: { s: true } }),
      await post({ query: '{ realm { nope } }' }),
      await post({ query: '{ realm { id ' }),
      await post({ query: 'query($id: ID) { realm(id: $id) { id } }', variables: { id: [1, 2] } }),
      await post({ query: REALM, extensions: {} }),
      await post({ query: REALM, operationName: 'Nope' }),
      await post({ query: REALM, variables: 'not an object' }),
      await post({ query: REALM }, { accept: 'application/graphql-response+json' }),
      await post({ query: REALM }, { 'apollo-query-plan-experimental': '1' }),
      await request(app)
        .post('/graphql')
        .set('content-type', 'text/plain')
        .send(JSON.stringify({ query: REALM })),
    ];
    expect(passed.map((r) => r.status)).toEqual(passed.map(() => 418));
  });

  it('answers the same whatever room it has to remember documents and plans', async () => {
    for (const room of [{ maxBytes: 1 }, { maxDocuments: 1 }, { maxBytes: 4096 }]) {
      const small = appWith(room);
      for (let i = 0; i < 2; i++) {
        for (const query of [REALM, '{ realm { name } }', 'query N { realm { id name } }']) {
          const res = await request(small).post('/graphql').set('content-type', 'application/json').send(JSON.stringify({ query }));
          expect(res.status).toBe(200);
          expect(res.body.data.realm).toMatchObject({ name: 'main' });
        }
        const passed = await request(small)
          .post('/graphql')
          .set('content-type', 'application/json')
          .send(JSON.stringify({ query: '{ __typename realm { nope } }' }));
        expect(passed.status).toBe(418);
      }
    }
  });
});
