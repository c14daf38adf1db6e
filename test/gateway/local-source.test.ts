import { buildSchema, type GraphQLSchema } from 'graphql';
import { InProcessDataSource } from '../../gateway/local-source';

/** The in-process subgraph source: plans' operation texts parsed and validated once, then only executed. */
describe('InProcessDataSource', () => {
  let schema: GraphQLSchema;
  let calls: number;
  beforeEach(() => {
    schema = buildSchema('type Query { hello(name: String!): String! }');
    calls = 0;
  });
  const source = (max?: number) => new InProcessDataSource(schema, max);
  const request = (query: string, variables: Record<string, unknown> = {}) =>
    ({
      request: { query, variables },
      context: { greeting: 'Hi' },
      kind: 'incoming operation',
    }) as never;

  it('executes with the variables and the context it is given, every time', async () => {
    const s = source();
    const q = 'query($n: String!) { hello(name: $n) }';
    const exec = (n: string) => s.process(request(q, { n }));
    Object.assign(schema.getQueryType()!.getFields().hello, {
      resolve: (_: unknown, args: { name: string }, ctx: { greeting: string }) => {
        calls++;
        return `${ctx.greeting} ${args.name}`;
      },
    });
    expect(await exec('Ann')).toEqual({ data: { hello: 'Hi Ann' } });
    expect(await exec('Bob')).toEqual({ data: { hello: 'Hi Bob' } });
    expect(calls).toBe(2);
  });

  it('answers an invalid or unparsable operation with its errors, again on the second try', async () => {
    const s = source();
    for (let i = 0; i < 2; i++) {
      const invalid = await s.process(request('{ nope }'));
      expect(invalid.errors?.[0]?.message).toBe('Cannot query field "nope" on type "Query".');
      const broken = await s.process(request('{ hello('));
      expect(broken.errors?.[0]?.message).toMatch(/^Syntax Error/);
    }
  });

  it('keeps at most the number of documents it is given, dropping the oldest', async () => {
    const s = source(2);
    Object.assign(schema.getQueryType()!.getFields().hello, { resolve: () => 'x' });
    for (const n of ['a', 'b', 'c']) expect(await s.process(request(`{ hello(name: "${n}") }`))).toEqual({ data: { hello: 'x' } });
    const held = (s as unknown as { prepared: Map<string, unknown> }).prepared;
    expect([...held.keys()]).toEqual(['{ hello(name: "b") }', '{ hello(name: "c") }']);
  });
});

describe('identical queries in flight share one execution', () => {
  const schema = buildSchema('type Query { me: String! } type Mutation { bump: Int! }');
  let runs = 0;
  let release!: () => void;
  let gate: Promise<void>;
  Object.assign(schema.getQueryType()!.getFields().me, {
    resolve: async (_: unknown, __: unknown, ctx: { headers: Record<string, string> }) => {
      runs++;
      await gate;
      if (ctx.headers.authorization === 'Bearer broken') throw new Error('internal detail');
      return ctx.headers.authorization;
    },
  });
  Object.assign(schema.getMutationType()!.getFields().bump, { resolve: () => ++runs });
  const call = (s: InProcessDataSource, query: string, authorization: string, operation = 'query') =>
    s.process({
      kind: 'incoming operation',
      request: { query, variables: {} },
      context: { headers: { authorization }, clientAddress: '10.0.0.1' },
      incomingRequestContext: { operation: { operation } },
    } as never);
  beforeEach(() => {
    runs = 0;
    gate = new Promise<void>((r) => (release = r));
  });
  const settle = () => new Promise((r) => setImmediate(r));

  it('runs a query asked by the same caller three times at once only once; each gets its own copy', async () => {
    const s = new InProcessDataSource(schema);
    const all = Promise.all([call(s, '{ me }', 'Bearer a'), call(s, '{ me }', 'Bearer a'), call(s, '{ me }', 'Bearer a')]);
    await settle();
    release();
    const [x, y, z] = await all;
    expect(runs).toBe(1);
    expect([x, y, z]).toEqual([{ data: { me: 'Bearer a' } }, { data: { me: 'Bearer a' } }, { data: { me: 'Bearer a' } }]);
    expect(y).not.toBe(x);
  });

  it('never shares between callers with different credentials', async () => {
    const s = new InProcessDataSource(schema);
    const all = Promise.all([call(s, '{ me }', 'Bearer a'), call(s, '{ me }', 'Bearer b')]);
    await settle();
    release();
    expect(await all).toEqual([{ data: { me: 'Bearer a' } }, { data: { me: 'Bearer b' } }]);
    expect(runs).toBe(2);
  });

  it('never shares a mutation, nor a result with errors (the other caller runs its own)', async () => {
    const s = new InProcessDataSource(schema);
    const bumps = await Promise.all([
      call(s, 'mutation { bump }', 'Bearer a', 'mutation'),
      call(s, 'mutation { bump }', 'Bearer a', 'mutation'),
    ]);
    expect(bumps.map((b) => b.data?.bump).sort()).toEqual([1, 2]);
    runs = 0;
    const all = Promise.all([call(s, '{ me }', 'Bearer broken'), call(s, '{ me }', 'Bearer broken')]);
    await settle();
    release();
    const [x, y] = await all;
    expect(runs).toBe(2);
    expect(x.errors?.[0]?.message).toBe('internal detail');
    expect((y.errors?.[0] as { originalError?: unknown }).originalError).toBeInstanceOf(Error);
  });
});
