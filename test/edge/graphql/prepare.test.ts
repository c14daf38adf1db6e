import { buildSchema, type GraphQLError } from 'graphql';
import { graphqlLimits } from '../../../edge/graphql/limits';
import { isRefusal, operationPreparer } from '../../../edge/graphql/prepare';

const schema = buildSchema('type Query { hello(name: String): String }');
const codes = (r: ReturnType<ReturnType<typeof operationPreparer>>) =>
  isRefusal(r) ? r.map((e: GraphQLError) => e.extensions.code) : 'document';

describe('operationPreparer', () => {
  it('hands the same document back for the same valid text, parsed and validated once', () => {
    const prepare = operationPreparer(schema, graphqlLimits());
    const first = prepare({ query: 'query Q($n: String) { hello(name: $n) }', variables: { n: 'a' } });
    const again = prepare({ query: 'query Q($n: String) { hello(name: $n) }', variables: { n: 'b' } });
    expect(codes(first)).toBe('document');
    expect(again).toBe(first);
    expect(prepare({ query: '{ hello }' })).not.toBe(first);
  });

  it('still judges each payload by the limits when its document is remembered', () => {
    const prepare = operationPreparer(schema, graphqlLimits({ maxVariableValues: 2 }));
    const query = 'query Q($n: String) { hello(name: $n) }';
    expect(codes(prepare({ query, variables: { n: 'a' } }))).toBe('document');
    expect(codes(prepare({ query, variables: { n: 'a', m: 'b', o: 'c' } }))).toEqual(['BAD_USER_INPUT']);
  });

  it('refuses an invalid text every time it comes (refusals are not remembered)', () => {
    const prepare = operationPreparer(schema, graphqlLimits());
    for (let i = 0; i < 2; i++) {
      expect(codes(prepare({ query: '{ goodbye }' }))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(codes(prepare({ query: '{ hello' }))).toEqual(['GRAPHQL_PARSE_FAILED']);
    }
  });

  it('keeps its own rules: introspection refused by a preparer without it, whatever another one remembers', () => {
    const query = '{ __schema { queryType { name } } }';
    expect(codes(operationPreparer(schema, graphqlLimits())({ query }))).toBe('document');
    const closed = operationPreparer(schema, graphqlLimits(), false);
    for (let i = 0; i < 2; i++) expect(codes(closed({ query }))).toContain('GRAPHQL_VALIDATION_FAILED');
  });
});
