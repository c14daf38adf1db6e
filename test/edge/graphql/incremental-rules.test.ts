import pino from 'pino';
import { parse, specifiedRules, validate } from 'graphql';
import { apolloPlanner } from '../../../gateway/apollo-planner';
import { readSupergraph } from '../../../gateway/supergraph';
import { extraRules } from '../../../edge/graphql/limits';

/** The graph's API schema, @defer and @stream declared, validated with the gateway's rules. */
const schema = apolloPlanner(readSupergraph(), pino({ level: 'silent' })).apiSchema;
const errorsOf = (query: string) => validate(schema, parse(query), [...specifiedRules, ...extraRules]).map((e) => e.message);

describe('@defer and @stream as the incremental delivery proposal asks', () => {
  it('takes unique literal labels, @stream on a list, a non-negative initialCount', () => {
    expect(
      errorsOf(`{ viewer { ... @defer(label: "a") { tenantId } ... @defer(label: "b") { roles } ... @defer { username } }
        search(query: "x") { hits @stream(initialCount: 2, label: "c") { score } } }`),
    ).toEqual([]);
  });

  it('refuses a label used twice, by @defer or @stream', () => {
    expect(errorsOf('{ viewer { ... @defer(label: "a") { tenantId } ... @defer(label: "a") { roles } } }')).toEqual([
      'The label "a" of @defer is used twice: labels must be unique.',
    ]);
    expect(
      errorsOf('{ viewer { ... @defer(label: "a") { tenantId } } search(query: "x") { hits @stream(label: "a") { score } } }'),
    ).toEqual(['The label "a" of @stream is used twice: labels must be unique.']);
  });

  it('refuses a label given by a variable', () => {
    expect(errorsOf('query($l: String) { viewer { ... @defer(label: $l) { tenantId } } }')).toEqual([
      'The label of @defer must be a string literal, not a variable.',
    ]);
  });

  it('refuses @stream on a field that is not a list, and a negative initialCount', () => {
    expect(errorsOf('{ viewer { username @stream } }')).toEqual(['@stream applies to list fields only; "username" is String, not a list.']);
    expect(errorsOf('{ search(query: "x") { hits @stream(initialCount: -5) { score } } }')).toEqual([
      'The initialCount of @stream must not be negative.',
    ]);
  });
});
