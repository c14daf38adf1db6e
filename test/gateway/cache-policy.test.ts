import { buildSchema, parse } from 'graphql';
import pino from 'pino';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { cacheHints } from '../../gateway/cache-hints';
import { cachePolicies, NOT_CACHEABLE } from '../../gateway/cache-policy';
import { composeSupergraph } from '../../gateway/supergraph';

const DIRECTIVE = `
enum CacheControlScope { PUBLIC PRIVATE }
directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
`;

const SDL = `${DIRECTIVE}
type Query {
  models: [Model!]! @cacheControl(maxAge: 60)
  model(id: ID!): Model
  catalog: Catalog @cacheControl(maxAge: 120)
  me: Account @cacheControl(maxAge: 30, scope: PRIVATE)
  version: String @cacheControl(maxAge: 300)
  greeting: String
  node(id: ID!): Node @cacheControl(maxAge: 100)
  search: [Result!]! @cacheControl(maxAge: 100)
  nodes: [Node!]!
  results: [Result!]!
  plain: Plain @cacheControl(maxAge: 50)
  fresh: Fresh
}
type Mutation { touch: Int @cacheControl(maxAge: 60) }
type Subscription { ticks: Int @cacheControl(maxAge: 60) }
type Catalog @cacheControl(maxAge: 90) {
  count: Int
  models: [Model!]!
  latest: Model @cacheControl(maxAge: 5)
  inherited: Plain @cacheControl(inheritMaxAge: true)
  owner: Account
}
type Model @cacheControl(maxAge: 40) {
  id: ID!
  name: String!
  price: Int @cacheControl(maxAge: 10)
  usage: Int @cacheControl(scope: PRIVATE)
}
type Account @cacheControl(scope: PRIVATE, maxAge: 200) { id: ID! quota: Int }
type Plain { a: Int child: Plain }
type Fresh @cacheControl(inheritMaxAge: true) { a: Int }
interface Node { id: ID! }
type Doc implements Node @cacheControl(maxAge: 70) { id: ID! title: String }
type Note implements Node @cacheControl(maxAge: 20, scope: PRIVATE) { id: ID! text: String }
union Result = Doc | Model
`;

const policy = cachePolicies(buildSchema(SDL), cacheHints(SDL));
const of = (query: string, operationName?: string) => policy(parse(query), operationName);
const pub = (maxAge: number) => ({ maxAge, scope: 'PUBLIC' });
const priv = (maxAge: number) => ({ maxAge, scope: 'PRIVATE' });

describe('cache policy of an operation (Apollo cacheControl semantics, static)', () => {
  it('is not cacheable without hints: a root field defaults to maxAge 0, so does a composite field', () => {
    expect(of('{ greeting }')).toEqual(NOT_CACHEABLE);
    expect(of('{ model(id: "1") { id } }')).toEqual(pub(40)); // the type's hint on an unhinted root field
    expect(of('{ catalog { owner { id } } }')).toEqual(priv(120)); // Account's own hint
    expect(of('{ plain { a } }')).toEqual(pub(50));
    expect(of('{ plain { child { a } } }')).toEqual(NOT_CACHEABLE); // child: composite, unhinted → 0
  });

  it("takes a root field's hint, scalar fields inheriting it", () => {
    expect(of('{ version }')).toEqual(pub(300));
    expect(of('{ version greeting }')).toEqual(NOT_CACHEABLE);
  });

  it("lets a field's own hint win over its type's, and takes the lowest maxAge of all fields", () => {
    expect(of('{ models { id name } }')).toEqual(pub(60));
    expect(of('{ models { id price } }')).toEqual(pub(10));
    expect(of('{ catalog { count } }')).toEqual(pub(120));
    expect(of('{ catalog { latest { id } } }')).toEqual(pub(5));
    expect(of('{ catalog { models { id } } }')).toEqual(pub(40));
    expect(of('{ version catalog { count } }')).toEqual(pub(120));
  });

  it('is PRIVATE if any field or type is, with the lowest maxAge', () => {
    expect(of('{ models { usage } }')).toEqual(priv(60));
    expect(of('{ me { id } }')).toEqual(priv(30));
    expect(of('{ version me { quota } }')).toEqual(priv(30));
  });

  it('honours inheritMaxAge on a field and on a type', () => {
    expect(of('{ catalog { inherited { a } } }')).toEqual(pub(120));
    // Under inheritMaxAge, a composite child without hints is 0 again.
    expect(of('{ catalog { inherited { child { a } } } }')).toEqual(NOT_CACHEABLE);
    // A root field has no parent to inherit from.
    expect(of('{ fresh { a } }')).toEqual(NOT_CACHEABLE);
  });

  it('is the same through lists, aliases, named and inline fragments', () => {
    expect(of('{ a: models { x: price } b: version }')).toEqual(pub(10));
    expect(of('query Q { models { ...M } } fragment M on Model { id price }')).toEqual(pub(10));
    expect(of('{ models { ... on Model { usage } } }')).toEqual(priv(60));
    expect(of('query { ...Root } fragment Root on Query { version greeting }')).toEqual(NOT_CACHEABLE);
  });

  it('takes the most restrictive possible type of an interface or a union', () => {
    expect(of('{ nodes { id } }')).toEqual(priv(20)); // Doc 70 public, Note 20 private
    expect(of('{ nodes { ... on Doc { title } } }')).toEqual(priv(20));
    expect(of('{ results { __typename } }')).toEqual(pub(40)); // Doc 70, Model 40
    expect(of('{ results { ... on Model { usage } } }')).toEqual(priv(40));
    // A field's own maxAge wins over its type's, the scope stays the most restrictive.
    expect(of('{ node(id: "1") { id } }')).toEqual(priv(100));
    expect(of('{ search { __typename } }')).toEqual(pub(100));
  });

  it('counts a field under @skip/@include on a variable, drops one under a literal true skip / false include', () => {
    expect(of('query($s: Boolean!) { version greeting @skip(if: $s) }')).toEqual(NOT_CACHEABLE);
    expect(of('query($i: Boolean!) { version me @include(if: $i) { id } }')).toEqual(priv(30));
    expect(of('{ version greeting @skip(if: true) }')).toEqual(pub(300));
    expect(of('{ version me @include(if: false) { id } }')).toEqual(pub(300));
    expect(of('{ version ... @include(if: false) { greeting } }')).toEqual(pub(300));
  });

  it('never caches mutations, subscriptions, introspection or a lone __typename', () => {
    expect(of('mutation { touch }')).toEqual(NOT_CACHEABLE);
    expect(of('subscription { ticks }')).toEqual(NOT_CACHEABLE);
    expect(of('{ __schema { queryType { name } } }')).toEqual(NOT_CACHEABLE);
    expect(of('{ version __type(name: "Model") { name } }')).toEqual(NOT_CACHEABLE);
    expect(of('{ __typename }')).toEqual(NOT_CACHEABLE);
    expect(of('{ __typename version }')).toEqual(pub(300));
  });

  it('picks the named operation of a document, and none that is not there', () => {
    const doc = 'query A { version } query B { me { id } }';
    expect(of(doc, 'A')).toEqual(pub(300));
    expect(of(doc, 'B')).toEqual(priv(30));
    expect(of(doc)).toEqual(NOT_CACHEABLE);
    expect(of(doc, 'C')).toEqual(NOT_CACHEABLE);
  });

  it('computes each document once (the same policy object for the same parsed document)', () => {
    const doc = parse('{ models { id } }');
    expect(policy(doc)).toBe(policy(doc));
  });
});

describe('cache hints read from a composed supergraph', () => {
  const HEAD = `extend schema
  @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@composeDirective"])
  @link(url: "https://specs.platform.invalid/cacheControl/v1.0", import: ["@cacheControl"])
  @composeDirective(name: "@cacheControl")
${DIRECTIVE}`;
  const supergraph = composeSupergraph([
    {
      name: 'a',
      sdl: `${HEAD} type Query { models: [Model!]! @cacheControl(maxAge: 30) } type Model @key(fields: "id") @cacheControl(maxAge: 60) { id: ID! }`,
    },
    { name: 'b', sdl: `${HEAD} type Model @key(fields: "id") { id: ID! usage: Int @cacheControl(scope: PRIVATE) }` },
  ]);
  const api = apolloPlanner(supergraph, pino({ level: 'silent' })).apiSchema;
  const fromSupergraph = cachePolicies(api, cacheHints(supergraph));

  it('applies the hints of every subgraph, though the API schema carries none', () => {
    expect(api.getType('Model')?.astNode?.directives?.some((d) => d.name.value === 'cacheControl') ?? false).toBe(false);
    expect(fromSupergraph(parse('{ models { id } }'))).toEqual(pub(30));
    expect(fromSupergraph(parse('{ models { id usage } }'))).toEqual(priv(30));
  });
});
