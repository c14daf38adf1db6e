import { buildSchema, execute, getIntrospectionQuery, getOperationAST, parse } from 'graphql';
import { introspectionCache, pureIntrospection } from '../../../edge/graphql/introspection';

/** The introspection cache: only pure introspection, keyed by text, operation name and schema, bounded in bytes. */
const schemaA = buildSchema('"The root." type Query { a: String }');
const schemaB = buildSchema('type Query { b: Int }');
const FULL = getIntrospectionQuery({ descriptions: true, oneOf: true });

const pure = (query: string, operationName?: string) => {
  const doc = parse(query);
  return pureIntrospection(doc, getOperationAST(doc, operationName)!);
};

describe('pureIntrospection', () => {
  it('is true only for queries whose root fields, fragments included, are schema fields, without variables', () => {
    expect(pure(FULL)).toBe(true);
    expect(pure('{ __typename }')).toBe(true);
    expect(
      pure('query Q { ...F } fragment F on Query { __schema { types { name } } ... on Query { __type(name: "Query") { name } } }'),
    ).toBe(true);
    expect(pure('{ __schema { types { name } } a }')).toBe(false);
    expect(pure('query Q { ...F } fragment F on Query { a }')).toBe(false);
    expect(pure('query($n: String!) { __type(name: $n) { name } }')).toBe(false);
    expect(pure('mutation { __typename }')).toBe(false);
    expect(pure('query A { a } query B { __typename }', 'B')).toBe(true);
  });
});

describe('introspectionCache', () => {
  const answer = (cache: ReturnType<typeof introspectionCache>, schema = schemaA, query = FULL, operationName?: string) =>
    cache.answer(schema, parse(query), operationName, query);

  it('answers as graphql-js executes, the same object from the cache, and the body as Apollo writes it', async () => {
    const cache = introspectionCache();
    const expected = await execute({ schema: schemaA, document: parse(FULL) });
    const first = await answer(cache);
    expect(first).toEqual(expected);
    expect(await answer(cache)).toBe(first);
    expect(cache.body(FULL, undefined)?.toString()).toBe(`${JSON.stringify({ data: expected.data })}\n`);
    expect(cache.body(FULL, 'IntrospectionQuery')).toBeUndefined();
    expect(cache.body(FULL, '')).toBeUndefined();
    expect(cache.body(FULL, null)).toBeDefined();
  });

  it('leaves other operations to the server', async () => {
    const cache = introspectionCache();
    expect(await answer(cache, schemaA, '{ a }')).toBeUndefined();
    expect(await answer(cache, schemaA, 'query($n: String!) { __type(name: $n) { name } }')).toBeUndefined();
    expect(cache.body('{ a }', undefined)).toBeUndefined();
  });

  it("keys by the schema: another schema's answer is its own, and bodies are served for the schema answered last", async () => {
    const cache = introspectionCache();
    const a = await answer(cache, schemaA);
    const b = await answer(cache, schemaB);
    expect(b).toEqual(await execute({ schema: schemaB, document: parse(FULL) }));
    expect(b).not.toEqual(a);
    expect(JSON.parse(cache.body(FULL, undefined)!.toString())).toEqual({ data: b!.data });
  });

  it('keeps at most maxBytes of answers, least recently used dropped, and never one over a quarter of it', async () => {
    const size = Buffer.byteLength(`${JSON.stringify({ data: (await execute({ schema: schemaA, document: parse(FULL) })).data })}\n`);
    const cache = introspectionCache(size * 4 + 10);
    const texts = Array.from({ length: 6 }, (_, i) => `${FULL}\n# variant ${i}`);
    for (const t of texts) await answer(cache, schemaA, t);
    expect(texts.map((t) => cache.body(t, undefined) !== undefined)).toEqual([false, false, true, true, true, true]);
    const small = introspectionCache(size * 2);
    await answer(small);
    expect(small.body(FULL, undefined)).toBeUndefined();
    expect(await answer(small)).toEqual(await execute({ schema: schemaA, document: parse(FULL) }));
  });
});
