import { execute, getIntrospectionQuery, parse, type GraphQLSchema, type IntrospectionOptions } from 'graphql';
import pino from 'pino';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { readSupergraph } from '../../gateway/supergraph';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { readSchemaFile } from '../../edge/graphql/sdl';
import type { SearchService } from '../../core/search/service';
import { searchResolvers } from '../../subgraphs/search';
import { startInTemp, type Started } from '../e2e/shared/server';
import { run, socketClient } from '../e2e/shared/subscription-wire';
import { fixedCallOf } from '../shared/helpers';
import type { Caller } from '../../core/shared/auth/caller';

/**
 * Introspection with every option of graphql 16's getIntrospectionQuery (`oneOf` was a 500 at the
 * gateway) answers 200 with what graphql-js itself answers on the same schema, the second time from
 * the cache, at the gateway and on a subgraph served alone; a flood gets identical answers; with
 * GRAPHQL_INTROSPECTION=false it is refused every time, cached or not.
 */
const OPTIONS = ['descriptions', 'specifiedByUrl', 'directiveIsRepeatable', 'schemaDescription', 'inputValueDeprecation', 'oneOf'] as const;
const COMBINATIONS: IntrospectionOptions[] = Array.from({ length: 2 ** OPTIONS.length }, (_, bits) =>
  Object.fromEntries(OPTIONS.map((o, i) => [o, Boolean(bits & (1 << i))])),
);

/** The schemas the two servers answer for, built here independently of them. */
const SCHEMAS: Record<string, () => GraphQLSchema> = {
  gateway: () => apolloPlanner(readSupergraph(), pino({ level: 'silent' })).apiSchema,
  search: () =>
    buildSubgraph(
      'search',
      readSchemaFile('search/search.graphql'),
      searchResolvers(undefined as unknown as SearchService, fixedCallOf(undefined as unknown as Caller), { maxUploadBytes: 1 }),
      pino({ level: 'silent' }),
    ).schema,
};

const post = async (base: string, body: unknown) => {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
};
const graphqlJs = async (schema: GraphQLSchema, query: string) =>
  JSON.parse(JSON.stringify(await execute({ schema, document: parse(query) })));

describe.each([
  ['the gateway', 'gateway', 'all'],
  ['search served alone', 'search', 'search'],
])('introspection on %s', (_name, key, role) => {
  let server: Started;
  let schema: GraphQLSchema;
  beforeAll(async () => {
    server = await startInTemp(role);
    schema = SCHEMAS[key]();
  }, 60_000);
  afterAll(() => server?.stop());

  // One test a combination: 64 introspections (each executed by graphql-js twice, here and there) in one
  // test outlasted its timeout on a loaded machine.
  it.each(COMBINATIONS.map((options) => [JSON.stringify(options), options] as const))(
    'answers getIntrospectionQuery(%s) as graphql-js does, twice the same (the second from the cache)',
    async (_name, options) => {
      const query = getIntrospectionQuery(options);
      const first = await post(server.url, { query });
      const second = await post(server.url, { query, operationName: 'IntrospectionQuery' });
      const third = await post(server.url, { query });
      expect({ options, statuses: [first.status, second.status, third.status] }).toEqual({ options, statuses: [200, 200, 200] });
      // The same text as graphql-js's answer, serialized (the server ends its body with a newline): equal
      // texts are equal answers, and a far cheaper check than a deep comparison.
      const want = `${JSON.stringify(await graphqlJs(schema, query))}\n`;
      if (first.text !== want) expect(JSON.parse(first.text)).toEqual(JSON.parse(want));
      expect(second.text).toBe(first.text);
      expect(third.text).toBe(first.text);
    },
  );

  it('a flood of 300 full introspections, 20 at a time, gets 300 identical 200s', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const answers: { status: number; text: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 300) {
          next++;
          answers.push(await post(server.url, { query }));
        }
      }),
    );
    expect(answers).toHaveLength(300);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(JSON.parse(answers[0].text)).toEqual(await graphqlJs(schema, query));
  });

  it('an introspection with variables is answered per variables, not from another answer', async () => {
    const query = 'query($name: String!) { __type(name: $name) { name kind } }';
    for (const name of ['Query', 'Mutation', 'Query', 'Nope']) {
      const r = await post(server.url, { query, variables: { name } });
      expect(JSON.parse(r.text)).toEqual({ data: { __type: name === 'Nope' ? null : { name, kind: 'OBJECT' } } });
    }
  });

  it('an empty operationName names no operation: 400 every time, never the cached answer nor a 500 (the gateway said 500)', async () => {
    const query = getIntrospectionQuery();
    expect((await post(server.url, { query })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await post(server.url, { query, operationName: '' });
      expect({ status: r.status, error: JSON.parse(r.text).errors[0] }).toEqual({
        status: 400,
        error: { message: 'Unknown operation named "".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } },
      });
    }
  });

  it('isOneOf beside other fields is an answer or a 400 validation error, never a 500', async () => {
    const alone = await post(server.url, { query: '{ __type(name: "DocumentFilter") { name isOneOf } __typename }' });
    expect(alone).toEqual({
      status: 200,
      text: `${JSON.stringify({ data: { __type: { name: 'DocumentFilter', isOneOf: false }, __typename: 'Query' } })}\n`,
    });
    const field = key === 'gateway' ? 'realm { id }' : 'document(id: "x") { id }';
    const mixed = await post(server.url, { query: `{ __type(name: "DocumentFilter") { name isOneOf } ${field} }` });
    if (key === 'gateway') {
      // The query planner's own schema model has no isOneOf: what graphql-js validated, it cannot plan.
      expect({ status: mixed.status, code: JSON.parse(mixed.text).errors[0].extensions.code }).toEqual({
        status: 400,
        code: 'GRAPHQL_VALIDATION_FAILED',
      });
    } else {
      expect({ status: mixed.status, type: JSON.parse(mixed.text).data.__type }).toEqual({
        status: 200,
        type: { name: 'DocumentFilter', isOneOf: false },
      });
    }
  });

  if (key === 'gateway') {
    it('over graphql-ws too, the answer is the one given over HTTP', async () => {
      const query = getIntrospectionQuery({ oneOf: true, inputValueDeprecation: true, descriptions: true });
      const client = socketClient(server.url, {});
      try {
        const { results, error } = await run(client, query, {});
        expect(error).toBeUndefined();
        expect(results).toEqual([JSON.parse((await post(server.url, { query })).text)]);
      } finally {
        await client.dispose();
      }
    });
  }
});

describe.each([
  ['the gateway', 'all'],
  ['search served alone', 'search'],
])('GRAPHQL_INTROSPECTION=false on %s', (_name, role) => {
  let server: Started;
  beforeAll(async () => {
    server = await startInTemp(role, { GRAPHQL_INTROSPECTION: 'false' });
  }, 60_000);
  afterAll(() => server?.stop());

  it('refuses introspection every time (nothing answered from a cache) and still answers __typename', async () => {
    const query = getIntrospectionQuery({ oneOf: true });
    for (let i = 0; i < 3; i++) {
      const r = await post(server.url, { query });
      expect({ status: r.status, code: JSON.parse(r.text).errors?.[0]?.extensions?.code }).toEqual({
        status: 400,
        code: 'GRAPHQL_VALIDATION_FAILED',
      });
    }
    for (let i = 0; i < 2; i++)
      expect(await post(server.url, { query: '{ __typename }' })).toEqual({ status: 200, text: '{"data":{"__typename":"Query"}}\n' });
  });
});
