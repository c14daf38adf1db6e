import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { buildSchema, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import pino from 'pino';
import { NotFound } from '../../core/shared/errors';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { apolloPlanner, type QueryPlanned } from '../../gateway/apollo-planner';
import { differsWhereNull, directFetchOf, nothingAt, type SingleFetch } from '../../gateway/direct-fetch';
import { InProcessDataSource } from '../../gateway/local-source';
import { readSupergraph } from '../../gateway/supergraph';

/**
 * A plan that is one root fetch of an in-process subgraph, selecting exactly what the client
 * selects, is answered with that fetch's data (gateway/direct-fetch.ts, issue 36): the answer must
 * be byte for byte the executor's (executeQueryPlan with its result shaping), errors included, and
 * anything the shaping would change must go to the executor.
 */
const log = pino({ level: 'silent' });
const planner = apolloPlanner(readSupergraph(), log);

const REALM = { id: 'r1', name: 'main', issuer: 'http://x/auth/realms/r1', jwksUri: 'http://x/certs', accessTokenLifespan: 300 };
const subgraph = (name: string, resolvers: Record<string, unknown>) =>
  buildSubgraph(name, readSchemaFile(`${name}/${name}.graphql`), resolvers, log).schema;
const token = subgraph('token', {
  Query: {
    realm: (_: unknown, { id }: { id?: string }) => {
      if (id === 'missing') throw new NotFound('No such realm', { code: 'realm_not_found' });
      if (id === 'broken') return { ...REALM, name: null };
      return id === 'none' ? null : REALM;
    },
  },
});
const models = subgraph('models', {
  Query: { models: () => [{ id: 'm1', group: 'A', kind: 'CHAT', contextLength: 8192 }] },
});

/** Each fetch counted, so a test sees the direct path fetch once even when the executor formats its errors. */
function counted(schema: typeof token) {
  const source = new InProcessDataSource(schema);
  const fetches: GraphQLDataSourceProcessOptions<Record<string, unknown>>[] = [];
  const process = source.process.bind(source);
  source.process = (o) => (fetches.push(o), process(o));
  return { source, fetches };
}

/** The same subgraph as a plain data source: the executor runs every plan over it. */
const throughExecutor = (source: InProcessDataSource): GraphQLDataSource => ({ process: (o) => source.process(o) });

const plan = (query: string, operationName?: string) => {
  const planned = planner.planQuery(parse(query), operationName);
  if (!planned) throw new Error(`not planned: ${query}`);
  return planned;
};
const run = (planned: QueryPlanned, query: string, sources: Record<string, GraphQLDataSource>, variables = {}, operationName?: string) =>
  planner.runQuery(planned, { document: parse(query), operationName, variables, context: {} }, sources);

describe('a plan of one root fetch in process', () => {
  const cases: [string, string, Record<string, unknown>?, string?][] = [
    ['a plain query', '{ realm { id name issuer jwksUri } }'],
    ['aliases and __typename', '{ __typename r: realm { __typename key: id name } }'],
    ['a fragment on the same type', '{ realm { ...F issuer } } fragment F on Realm { id name }'],
    ['variables and a name', 'query R($id: ID) { realm(id: $id) { id accessTokenLifespan } }', { id: 'r1' }, 'R'],
    ['a null root field', '{ realm(id: "none") { id } }'],
    ['enums and lists', '{ models { id group kind contextLength } }'],
    ['an error', '{ realm(id: "missing") { id } }'],
    ['a non-null field resolving to null', '{ realm(id: "broken") { id name } }'],
  ];

  it.each(cases)('answers %s as the executor does', async (_, query, variables = {}, operationName) => {
    const direct = { token: counted(token), models: counted(models) };
    const sources = { token: direct.token.source, models: direct.models.source };
    const planned = plan(query, operationName);
    const mine = await run(planned, query, sources, variables, operationName);
    const theirs = await run(
      planned,
      query,
      { token: throughExecutor(counted(token).source), models: throughExecutor(counted(models).source) },
      variables,
      operationName,
    );
    expect(JSON.stringify(mine)).toBe(JSON.stringify(theirs));
    // Each answers data, not only errors (the comparison would hold for two failures alike).
    expect(JSON.stringify(mine)).toMatch(/"data":\{"(realm|__typename|models)":/);
    // One fetch either way: with errors, the executor formats the answer the direct path already has.
    expect(direct.token.fetches.length + direct.models.fetches.length).toBe(1);
  });

  it('is taken only where the subgraph runs in process and the selection is the same', () => {
    const sources = { token: counted(token).source, models: counted(models).source };
    const direct = (query: string, s: Record<string, GraphQLDataSource> = sources) =>
      Boolean((plan(query) as unknown as { directFetch(d: typeof s): unknown }).directFetch(s));
    expect(direct('{ realm { id name } }')).toBe(true);
    expect(direct('{ realm { ...F } } fragment F on Realm { id }')).toBe(true);
    // Two subgraphs, a remote (or any other) data source: the executor's.
    expect(direct('{ realm { id } models { id } }')).toBe(false);
    expect(direct('{ realm { id name } }', { ...sources, token: throughExecutor(counted(token).source) })).toBe(false);
    // A response name twice is merged: left to the executor.
    expect(direct('{ realm { id } realm { name } }')).toBe(false);
  });
});

describe('the shape test', () => {
  const fetchOf = (operation: string): SingleFetch => ({ kind: 'Fetch', serviceName: 's', operation, operationKind: 'query' });
  const client = (text: string) => {
    const document: DocumentNode = parse(text);
    return { document, operation: document.definitions[0] as OperationDefinitionNode };
  };
  const api = buildSchema(`
    enum E { A B }
    interface I { id: ID! }
    type T implements I { id: ID! n: Int }
    type Query { t: T! ts: [T!] e: E i: I s(x: Int = 1): String }`);
  const same = api;
  const nested = buildSchema(`
    type T { id: ID! n: Int }
    type W { t: T! }
    type V { ts: [T!]! }
    type Query { w: W v: V! }`);
  const shaped = (sub: typeof api, text: string, fetched = text) => directFetchOf(fetchOf(fetched), client(text), api, sub);

  it('says the same selection on the same types needs no shaping', () => {
    expect(shaped(same, '{ t { id n } ts { id } e s(x: 2) }')).toBe(true);
    expect(shaped(same, '{ a: t { b: id } }', '{a:t{b:id}}')).toBe(true);
  });

  it('says shaping is needed for other nullability, enum values, abstract types, other selections, directives, rewrites', () => {
    expect(shaped(buildSchema('type T { id: ID! n: Int } type Query { t: T }'), '{ t { id } }')).toBe(false);
    expect(shaped(buildSchema('enum E { A B C } type Query { e: E }'), '{ e }')).toBe(false);
    expect(shaped(same, '{ i { id } }')).toBe(false);
    expect(shaped(same, '{ t { id n } }', '{ t { id } }')).toBe(false);
    expect(shaped(same, '{ t { n id } }', '{ t { id n } }')).toBe(false);
    expect(shaped(same, '{ s(x: 2) }', '{ s(x: 3) }')).toBe(false);
    expect(shaped(same, '{ t { id @skip(if: true) } }')).toBe(false);
    expect(shaped(same, '{ t { ... on T { id } } }', '{ t { id } }')).toBe(true);
    expect(directFetchOf({ ...fetchOf('{ t { id } }'), outputRewrites: [{}] }, client('{ t { id } }'), api, same)).toBe(false);
    expect(directFetchOf({ ...fetchOf('{ t { id } }'), requires: [] }, client('{ t { id } }'), api, same)).toBe(false);
  });

  it('names where the selections differ when an event there is null or an empty list could be answered as it comes', () => {
    const differs = (text: string, fetched: string) => differsWhereNull(fetchOf(fetched), client(text), api, same);
    expect(differs('{ t { id n } }', '{ t { id n } }')).toEqual([]);
    // A nullable field, or a list (even a non-null one: [] there), may differ below itself.
    expect(differs('{ e ts { n } }', '{ e ts { __typename id } }')).toEqual([['ts']]);
    expect(differs('{ x: ts { id } t { id } }', '{ x: ts { id } t { id } }')).toEqual([]);
    expect(differsWhereNull(fetchOf('{ w { t { id } } }'), client('{ w { t { n } } }'), nested, nested)).toEqual([['w']]);
    expect(differsWhereNull(fetchOf('{ v { ts { id } } }'), client('{ v { ts { n } } }'), nested, nested)).toEqual([['v', 'ts']]);
    // A non-null object differing below, another field or another name: never.
    expect(differs('{ t { n } }', '{ t { id } }')).toBeUndefined();
    expect(differs('{ e }', '{ s }')).toBeUndefined();
    expect(differs('{ a: ts { id } }', '{ b: ts { id } }')).toBeUndefined();
    expect(differsWhereNull({ ...fetchOf('{ ts { id } }'), requires: [] }, client('{ ts { n } }'), api, same)).toBeUndefined();
  });

  it('finds nothing at a path through nulls and lists, and something anywhere else', () => {
    expect(nothingAt({ a: { b: null } }, ['a', 'b'])).toBe(true);
    expect(nothingAt({ a: null }, ['a', 'b'])).toBe(true);
    expect(nothingAt({ a: [] }, ['a'])).toBe(true);
    expect(nothingAt({ a: [{ b: null }, null, { b: [] }] }, ['a', 'b'])).toBe(true);
    expect(nothingAt({ a: [{ b: null }, { b: [{ c: 1 }] }] }, ['a', 'b'])).toBe(false);
    expect(nothingAt({ a: { b: 0 } }, ['a', 'b'])).toBe(false);
    expect(nothingAt({ a: { b: '' } }, ['a', 'b'])).toBe(false);
    expect(nothingAt({ a: { b: {} } }, ['a', 'b'])).toBe(false);
  });
});

describe("the executor's operations, remembered", () => {
  it('gives the executor the same operation for the same operation node, and leaves validating calls alone', () => {
    // The package's index, as @apollo/gateway's executor reads it.
    const { operationFromDocument } = require('@apollo/federation-internals') as {
      operationFromDocument: (schema: unknown, document: DocumentNode, options?: { validate?: boolean }) => unknown;
    };
    const supergraph = require('@apollo/federation-internals').Supergraph.build(readSupergraph());
    const schema = supergraph.apiSchema();
    const document = parse('{ realm { id } }');
    const asExecutor = () =>
      operationFromDocument(schema, { kind: document.kind, definitions: [...document.definitions] }, { validate: false });
    expect(asExecutor()).toBe(asExecutor());
    expect(operationFromDocument(schema, document)).not.toBe(operationFromDocument(schema, document));
    // Another document of the same text is another operation node: not the same.
    expect(operationFromDocument(schema, parse('{ realm { id } }'), { validate: false })).not.toBe(asExecutor());
  });
});
