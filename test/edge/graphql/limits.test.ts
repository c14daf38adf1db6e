import { buildSubgraphSchema } from '@apollo/subgraph';
import { getIntrospectionQuery, parse } from 'graphql';
import pino from 'pino';
import request from 'supertest';
import { createRestApp } from '../../../rest/shared/app';
import type { Subgraph } from '../../../edge/graphql/subgraph';
import type { GraphqlLimits } from '../../../edge/graphql/limits';
import { subgraphRouter } from '../../../subgraphs/shared/server';
import { tokenFixture, tokenSubgraph, type TokenFixture } from '../../shared/helpers';

const log = pino({ level: 'silent' });
const nested = (levels: number) => `{${' a {'.repeat(levels - 1)} b${' }'.repeat(levels - 1)} }`;
const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `r${i}: realm { id }`).join(' ')} }`;

/** A subgraph served alone (`platform serve token`), behind the platform's app. */
async function serve(subgraph: Subgraph, limits?: Partial<GraphqlLimits>) {
  const served = await subgraphRouter(subgraph, log, undefined, { limits });
  const app = createRestApp([], { log, extra: [{ path: '/', router: served.router }] });
  const post = (body: unknown) =>
    request(app)
      .post('/graphql')
      .set('content-type', 'application/json')
      .send(body as object);
  return { app, post, stop: served.stop };
}
type Served = Awaited<ReturnType<typeof serve>>;

const refused = (res: request.Response, code: string, message: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code } });
};

describe('the token subgraph served alone bounds every operation before running it', () => {
  let fx: TokenFixture;
  let token: Subgraph;
  let dflt: Served;
  let tight: Served;

  beforeAll(async () => {
    fx = await tokenFixture();
    token = tokenSubgraph(fx);
    dflt = await serve(token);
    tight = await serve(token, { maxDepth: 2, maxCost: 4, maxTokens: 20_000 });
  });
  afterAll(async () => {
    await dflt.stop();
    await tight.stop();
    await fx.core.close();
  });

  it('answers operations within the limits, introspection included', async () => {
    const ok = await dflt.post({ query: aliased(30) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.r29).toEqual({ id: fx.realm });
    const schema = await dflt.post({ query: getIntrospectionQuery() });
    expect(schema.status).toBe(200);
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
    // Introspection is outside depth and cost, but graphql's MaxIntrospectionDepthRule bounds it.
    const deep = '{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }';
    refused(await dflt.post({ query: deep }), 'GRAPHQL_VALIDATION_FAILED', /Maximum introspection depth exceeded/);
  });

  it('refuses more @defer and @stream than GRAPHQL_MAX_DEFERS, a fragment counted each time it is spread', async () => {
    const defers = (n: number) => `{ ${Array.from({ length: n }, () => '... @defer { __typename }').join(' ')} }`;
    refused(await dflt.post({ query: defers(11) }), 'TOO_MANY_DEFERS', /defers 11 parts \(@defer, @stream\); the limit is 10/);
    const spread = `{ ...F ...F ...F ...F ...F ...F } fragment F on Query { ... @defer { __typename } a: __typename @stream }`;
    refused(await dflt.post({ query: spread }), 'TOO_MANY_DEFERS', /defers 12 parts/);
  });

  it('refuses too many tokens, aliases, levels and fields, saying the limit', async () => {
    refused(await dflt.post({ query: `{${' __typename'.repeat(5000)} }` }), 'QUERY_TOO_LARGE', /5000 tokens/);
    refused(await dflt.post({ query: aliased(31) }), 'TOO_MANY_ALIASES', /31 aliases; the limit is 30/);
    refused(await dflt.post({ query: nested(13) }), 'QUERY_TOO_DEEP', /13 levels deep; the limit is 12/);
    // Twelve levels pass the guard; validation then finds no field `a`.
    refused(await dflt.post({ query: nested(12) }), 'GRAPHQL_VALIDATION_FAILED', /Cannot query field "a"/);
    // Deeper than the parser's stack, yet within the token limit.
    refused(await tight.post({ query: nested(6000) }), 'QUERY_TOO_DEEP', /nested too deeply/);
    refused(
      await tight.post({ query: `query($t: String!) { introspectToken(token: $t, realm: "r") { realm { id } } }`, variables: { t: 'x' } }),
      'QUERY_TOO_DEEP',
      /3 levels deep; the limit is 2/,
    );
  });

  it('counts fields through fragments, leaving introspection out', async () => {
    const four = '{ __typename realm { __typename id ...N } } fragment N on Realm { name issuer }';
    const ok = await tight.post({ query: four });
    expect(ok.status).toBe(200);
    expect(ok.body.data.realm).toMatchObject({ id: fx.realm, name: 'main' });
    refused(await tight.post({ query: four.replace('issuer', 'issuer jwksUri') }), 'QUERY_TOO_COSTLY', /5 fields.*the limit is 4/);
    // 2^40 spreads of two fragments that each spread both of the next pair: counted, not expanded.
    const levels = Array.from(
      { length: 40 },
      (_, i) => `fragment F${i} on Query { ...F${i + 1} ...G${i + 1} } fragment G${i} on Query { ...F${i + 1} ...G${i + 1} }`,
    );
    const bomb = `query { ...F0 } ${levels.join(' ')} fragment F40 on Query { realm { id } } fragment G40 on Query { realm { name } }`;
    refused(await dflt.post({ query: bomb }), 'QUERY_TOO_COSTLY', /the limit is 2000/);
    // A fragment cycle neither hangs nor passes: validation refuses it.
    refused(
      await dflt.post({ query: '{ ...A } fragment A on Query { realm { id } ...B } fragment B on Query { ...A }' }),
      'GRAPHQL_VALIDATION_FAILED',
      /Cannot spread fragment "A" within itself/,
    );
  });

  it('refuses more than five mutations in one request, fragments included', async () => {
    const revoke = (i: number) => `v${i}: revokeToken(token: "x", realm: $r)`;
    const five = await dflt.post({ query: `mutation($r: ID) { ${[0, 1, 2, 3, 4].map(revoke).join(' ')} }`, variables: { r: fx.realm } });
    expect(five.status).toBe(200);
    expect(five.body.data.v4).toBe(true);
    const six = `mutation($r: ID) { ${revoke(0)} ...M ...N } fragment M on Mutation { ${[1, 2].map(revoke).join(' ')} } fragment N on Mutation { ${[3, 4, 5].map(revoke).join(' ')} }`;
    refused(await dflt.post({ query: six, variables: { r: fx.realm } }), 'TOO_MANY_MUTATIONS', /6 mutations; the limit is 5/);
  });

  it('measures only the operation that will run', async () => {
    const doc = 'query Small { realm { id } } query Deep { introspectToken(token: "x", realm: "r") { realm { id } } }';
    const small = await tight.post({ query: doc, operationName: 'Small' });
    expect(small.status).toBe(200);
    expect(small.body.data).toEqual({ realm: { id: fx.realm } });
    refused(await tight.post({ query: doc, operationName: 'Deep' }), 'QUERY_TOO_DEEP', /3 levels deep; the limit is 2/);
    refused(await tight.post({ query: doc }), 'OPERATION_RESOLUTION_FAILURE', /Must provide operation name/);
    refused(await tight.post({ query: doc, operationName: 'Nope' }), 'OPERATION_RESOLUTION_FAILURE', /Unknown operation named "Nope"/);
  });

  it('checks GET query strings as well, and refuses batches', async () => {
    const get = (query: string) => request(dflt.app).get('/graphql').query({ query }).set('apollo-require-preflight', 'true');
    refused(await get(nested(13)), 'QUERY_TOO_DEEP', /limit is 12/);
    const ok = await get('{ realm { name } }');
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ realm: { name: 'main' } });
    refused(await dflt.post([{ query: '{ realm { id } }' }]), 'BATCHING_NOT_SUPPORTED', /one operation per request/);
    refused(await dflt.post({ query: '{ realm { id }' }), 'GRAPHQL_PARSE_FAILED', /Syntax Error/);
  });

  it('refuses subscriptions where the schema has none', async () => {
    refused(
      await dflt.post({ query: 'subscription { realm { id } }' }),
      'SUBSCRIPTIONS_NOT_SUPPORTED',
      /Subscriptions are not served at this endpoint/,
    );
  });
});

describe('a subgraph with a Subscription type', () => {
  const typeDefs = parse('type Query { boom: String } type Subscription { ticks: Int }');
  const schema = buildSubgraphSchema({
    typeDefs,
    resolvers: {
      Query: {
        boom: () => {
          throw new Error('disk on fire at /var/lib');
        },
      },
      Subscription: { ticks: () => 1 },
    },
  });
  let served: Served;
  beforeAll(async () => {
    served = await serve({ name: 'token', typeDefs, schema });
  });
  afterAll(() => served.stop());

  it('lets subscriptions through the guard', async () => {
    const res = await served.post({ query: 'subscription { ticks }' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ticks: 1 } });
  });

  it('still masks what a resolver throws unexpectedly', async () => {
    const res = await served.post({ query: '{ boom }' });
    expect(res.body.errors[0]).toEqual(
      expect.objectContaining({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }),
    );
    expect(JSON.stringify(res.body)).not.toMatch(/disk on fire/);
  });
});
