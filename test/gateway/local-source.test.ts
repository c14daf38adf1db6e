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
  const request = (query: string, variables: Record<string, unknown> = {}) => ({
    request: { query, variables }, context: { greeting: 'Hi' }, kind: 'incoming operation',
  }) as never;

  it('executes with the variables and the context it is given, every time', async () => {
    const s = source();
    const q = 'query($n: String!) { hello(name: $n) }';
    const exec = (n: string) => s.process(request(q, { n }));
    Object.assign(schema.getQueryType()!.getFields().hello!, {
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
    Object.assign(schema.getQueryType()!.getFields().hello!, { resolve: () => 'x' });
    for (const n of ['a', 'b', 'c']) expect(await s.process(request(`{ hello(name: "${n}") }`))).toEqual({ data: { hello: 'x' } });
    const held = (s as unknown as { prepared: Map<string, unknown> }).prepared;
    expect([...held.keys()]).toEqual(['{ hello(name: "b") }', '{ hello(name: "c") }']);
  });
});
