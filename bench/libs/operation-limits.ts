/**
 * (a) GraphQL operation limits for `npm run bench:libs`: the platform's document guard
 * (edge/graphql/limits.ts, through edge/graphql/prepare.ts as the WebSocket and SSE transports use
 * it: guard, parse, validate) against graphql-armor's protections as its Apollo integration runs
 * them (a parse with its token-counting parser, Apollo's parse, then validation with graphql's
 * rules and armor's). Both sides use graphql 16.15.0 (armor's own copy in the temporary folder),
 * the same schema and the same limits, and build everything per document (no cache on either side).
 */
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { operationPreparer } from '../../edge/graphql/prepare';
import { DEFAULT_GRAPHQL_LIMITS } from '../../edge/graphql/limits';
import { ratio, sideBySide, us } from './timing';

export const ARMOR_PACKAGES = {
  '@escape.tech/graphql-armor-max-tokens': '2.5.1',
  '@escape.tech/graphql-armor-max-depth': '2.4.2',
  '@escape.tech/graphql-armor-max-aliases': '2.6.2',
  '@escape.tech/graphql-armor-max-directives': '2.3.1',
  '@escape.tech/graphql-armor-cost-limit': '2.4.3',
  // The version the project runs, so both sides parse and validate with the same code.
  graphql: '16.15.0',
};

const SDL = `
type Query { me: User  node(id: ID): Node }
type Mutation { rename(id: ID!, name: String!): Node }
type User { id: ID!  name: String  email: String  keys: [Key!]! }
type Key { id: ID!  name: String  createdAt: String  scopes: [String!]! }
type Node { id: ID!  name: String  child: Node  children(first: Int): [Node!]! }
`;

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');

/** The documents measured: one a client sends every day, then the hostile shapes each limit is for. */
export const DOCUMENTS: { name: string; query: string }[] = [
  {
    name: 'benign (15 fields, a fragment, a variable)',
    query: `query Dashboard($id: ID!) { me { id name email keys { ...KeyFields } } node(id: $id) { id name children(first: 10) { id name child { id name } } } }
fragment KeyFields on Key { id name createdAt scopes }`,
  },
  { name: 'deep (300 levels)', query: `{ node { ${'child { '.repeat(300)}id${' }'.repeat(300)} } }` },
  { name: 'aliases (1,500)', query: `{ node { ${repeat(1500, (i) => `a${i}: name`)} } }` },
  { name: 'directives (700 on one field)', query: `{ node { name ${repeat(700, () => '@include(if: true)')} } }` },
  { name: 'repeated field (4,900, over the cost limit)', query: `{ node { ${repeat(4900, () => 'name')} } }` },
  { name: 'repeated field (1,900, under every limit)', query: `{ node { ${repeat(1900, () => 'name')} } }` },
  {
    name: 'fragment bomb (2^30 fields expanded)',
    query: `{ node { ...F30 } } fragment F0 on Node { name } ${repeat(30, (i) => `fragment F${i + 1} on Node { ...F${i} ...F${i} }`)}`,
  },
  { name: 'tokens (100,000)', query: `{ node { ${repeat(99_990, () => 'name')} } }` },
];

// The parts of the packages used here, as they declare them.
type Rule = (context: unknown) => unknown;
interface Graphql {
  buildSchema(sdl: string): unknown;
  parse(source: string): unknown;
  validate(schema: unknown, doc: unknown, rules: readonly Rule[]): readonly { message: string }[];
  specifiedRules: readonly Rule[];
}

/** Armor's protections with the platform's limits (cost: one per field, as ours counts). */
function armorPreparer(modules: string) {
  const gql = require(join(modules, 'graphql')) as Graphql;
  const { MaxTokensParserWLexer } = require(join(modules, '@escape.tech/graphql-armor-max-tokens')) as {
    MaxTokensParserWLexer: new (s: string, o: object) => { parseDocument(): unknown };
  };
  const { maxDepthRule } = require(join(modules, '@escape.tech/graphql-armor-max-depth')) as { maxDepthRule: (o: object) => Rule };
  const { maxAliasesRule } = require(join(modules, '@escape.tech/graphql-armor-max-aliases')) as { maxAliasesRule: (o: object) => Rule };
  const { maxDirectivesRule } = require(join(modules, '@escape.tech/graphql-armor-max-directives')) as {
    maxDirectivesRule: (o: object) => Rule;
  };
  const { costLimitRule } = require(join(modules, '@escape.tech/graphql-armor-cost-limit')) as { costLimitRule: (o: object) => Rule };
  const schema = gql.buildSchema(SDL);
  const limits = DEFAULT_GRAPHQL_LIMITS;
  return (query: string): string => {
    const rules = [
      ...gql.specifiedRules,
      maxDepthRule({ n: limits.maxDepth }),
      maxAliasesRule({ n: limits.maxAliases }),
      maxDirectivesRule({ n: 50 }),
      costLimitRule({ maxCost: limits.maxCost, objectCost: 1, scalarCost: 1, depthCostFactor: 1 }),
    ];
    try {
      new MaxTokensParserWLexer(query, { n: limits.maxTokens }).parseDocument();
      const errors = gql.validate(schema, gql.parse(query), rules);
      return errors.length
        ? `invalid: ${errors.length > 1 ? `${errors.length} errors, first ` : ''}"${errors[0].message.slice(0, 70)}"`
        : 'accepted';
    } catch (err) {
      return `refused: "${(err as Error).message.slice(0, 70)}"`;
    }
  };
}

/** The outcome of one document through the guard, parse and validation: `accepted` or the first error's code. */
export function ourPreparer() {
  const schema = buildSchema(SDL);
  return (query: string): string => {
    const prepared = operationPreparer(schema, DEFAULT_GRAPHQL_LIMITS)({ query });
    if (!Array.isArray(prepared)) return 'accepted';
    const errors = prepared as readonly { message: string; extensions: { code?: string } }[];
    return `${errors[0].extensions.code}${errors.length > 1 ? ` (${errors.length} errors)` : ''}`;
  };
}

export async function compareOperationLimits(modules: string, rounds: number, ms: number, print: (s: string) => void) {
  const ours = ourPreparer();
  const armor = armorPreparer(modules);
  print('\n## (a) GraphQL operation limits: document guard vs graphql-armor\n\n');
  print(
    `Limits: ${DEFAULT_GRAPHQL_LIMITS.maxTokens} tokens, depth ${DEFAULT_GRAPHQL_LIMITS.maxDepth}, ${DEFAULT_GRAPHQL_LIMITS.maxAliases} aliases, cost ${DEFAULT_GRAPHQL_LIMITS.maxCost} fields (armor: also 50 directives). CPU time to accept or refuse one document, parse and validation included (wall time in parentheses).\n\n`,
  );
  print('| document | bytes | ours | armor | ours: outcome | armor: outcome | armor/ours CPU |\n|---|---|---|---|---|---|---|\n');
  const rows = [];
  for (const doc of DOCUMENTS) {
    const r = await sideBySide(
      () => ours(doc.query),
      () => armor(doc.query),
      rounds,
      ms,
    );
    rows.push({ name: doc.name, ...r });
    print(
      `| ${doc.name} | ${doc.query.length.toLocaleString('en')} | ${us(r.ours.cpuUs)} (${us(r.ours.wallUs)}) | ${us(r.theirs.cpuUs)} (${us(r.theirs.wallUs)}) | ${ours(doc.query)} | ${armor(doc.query)} | ${ratio(r, 'cpuUs')} |\n`,
    );
  }
  return rows;
}
