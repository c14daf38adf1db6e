import type { Request, RequestHandler } from 'express';
import {
  GraphQLError,
  Kind,
  MaxIntrospectionDepthRule,
  OperationTypeNode,
  parse,
  specifiedRules,
  type DocumentNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { BadRequest } from '../../core/shared/errors';
import { boundRequestJson } from './variables';
import { IncrementalDeliveryRule } from './incremental-rules';

/**
 * Document guard: every operation is bounded before Apollo parses, validates or plans it. Parts of
 * graphql-js validation (OverlappingFieldsCanBeMerged) are super-linear, so one 1 MB document of
 * aliases kept the process busy for seconds; here the document is parsed once with a token cap and
 * its AST measured in linear time. Rules:
 * - the document's text is at most maxDocumentChars long (comments and strings are not tokens the
 *   parser counts, and the body may be far larger than a document needs: an upload's variables);
 * - the whole document has at most maxTokens tokens;
 * - only the operation that will run counts (operationName, or the document's only operation);
 * - depth and cost leave out introspection (`__schema`, `__type`, `__typename` and below), whose
 *   schema queries nest deep; MaxIntrospectionDepthRule bounds those during validation instead;
 * - aliases count everywhere; fragments count each time they are spread (memoised, never expanded);
 * - a subscription is refused unless the schema has a Subscription type; a JSON array (batch) too;
 * - variables are bounded in depth and size (edge/graphql/variables.ts), on every request.
 * A refusal is a BadRequest whose code becomes the GraphQL `extensions.code` (graphqlHttpErrors).
 */
export interface GraphqlLimits {
  /** Characters of the document's text (BODY_LIMIT_BYTES: what a whole body was before uploads came through the graph). */
  maxDocumentChars: number;
  /** Lexical tokens in the whole document (graphql's `parse(..., { maxTokens })`). */
  maxTokens: number;
  /** Nesting of fields in the operation, its root fields being depth 1. */
  maxDepth: number;
  /** Aliased fields in the operation, fragments expanded. */
  maxAliases: number;
  /** Fields the operation selects, fragments expanded: a bound on the work of one request. */
  maxCost: number;
  /** Root fields of a mutation operation (each one a write), fragments included. */
  maxMutations: number;
  /** Values in the operation's variables, all levels counted (edge/graphql/variables.ts; their depth is MAX_JSON_DEPTH). */
  maxVariableValues: number;
  /** `@defer` and `@stream` directives in the operation, fragments expanded: each one a part delivered apart (gateway/defer/). */
  maxDefers: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = Object.freeze({
  maxDocumentChars: 1_048_576,
  maxTokens: 5000,
  maxDepth: 12,
  maxAliases: 30,
  maxCost: 2000,
  maxMutations: 5,
  maxVariableValues: 10_000,
  maxDefers: 10,
});

/** The defaults with `overrides` on top; an undefined override keeps its default. */
export function graphqlLimits(overrides: Partial<GraphqlLimits> = {}): GraphqlLimits {
  const limits = { ...DEFAULT_GRAPHQL_LIMITS };
  for (const key of Object.keys(limits) as (keyof GraphqlLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`GraphQL limit ${key} must be a positive integer, got ${value}`);
    limits[key] = value;
  }
  return limits;
}

/** Bounding introspection; graphql >= 16.9 may already list the rule among its own (twice would repeat its error). */
const introspectionRules: ValidationRule[] = specifiedRules.includes(MaxIntrospectionDepthRule) ? [] : [MaxIntrospectionDepthRule];

/** Validation rules besides graphql-js's own: introspection bounded, `@defer`/`@stream` used as the proposal asks. */
export const extraRules: ValidationRule[] = [...introspectionRules, IncrementalDeliveryRule];

const refuse = (code: string, message: string) => new BadRequest(message, { code });

interface Size {
  depth: number;
  cost: number;
  aliases: number;
  roots: number;
  defers: number;
}
const NOTHING: Size = Object.freeze({ depth: 0, cost: 0, aliases: 0, roots: 0, defers: 0 });
const INCREMENTAL = new Set(['defer', 'stream']);
/** A selection's `@defer` or `@stream` (one part delivered apart, whatever its `if`). */
const incremental = (s: SelectionNode) => (s.directives?.some((d) => INCREMENTAL.has(d.name.value)) ? 1 : 0);

/** One pass over the operation; each fragment is measured once, so a fragment bomb is counted, not expanded. */
function measure(doc: DocumentNode, operation: OperationDefinitionNode): Size {
  const fragments = new Map(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const measured = new Map<string, Size>();
  const fragment = (name: string): Size => {
    const known = measured.get(name);
    if (known) return known;
    const def = fragments.get(name);
    if (!def) return NOTHING;
    // A cycle counts as nothing while its fragment is being measured; validation refuses it later.
    measured.set(name, NOTHING);
    const size = selections(def.selectionSet);
    measured.set(name, size);
    return size;
  };
  const selections = (set: SelectionSetNode): Size => {
    const total = { depth: 0, cost: 0, aliases: 0, roots: 0, defers: 0 };
    for (const s of set.selections) {
      const inner =
        s.kind === Kind.FIELD
          ? s.selectionSet
            ? selections(s.selectionSet)
            : NOTHING
          : s.kind === Kind.INLINE_FRAGMENT
            ? selections(s.selectionSet)
            : fragment(s.name.value);
      total.aliases += inner.aliases + (s.kind === Kind.FIELD && s.alias ? 1 : 0);
      total.defers += inner.defers + incremental(s);
      if (s.kind === Kind.FIELD && s.name.value.startsWith('__')) continue;
      const field = s.kind === Kind.FIELD ? 1 : 0;
      total.cost += field + inner.cost;
      total.roots += field || inner.roots;
      total.depth = Math.max(total.depth, field + inner.depth);
    }
    return total;
  };
  return selections(operation.selectionSet);
}

function parseBounded(query: string, maxTokens: number): DocumentNode {
  try {
    return parse(query, { maxTokens, noLocation: true });
  } catch (err) {
    // graphql's wording: "Document contains more that N tokens. Parsing aborted."
    if (err instanceof GraphQLError && /tokens\. Parsing aborted/.test(err.message)) {
      throw refuse('QUERY_TOO_LARGE', `The document has more than ${maxTokens} tokens, the limit`);
    }
    // The parser recurses once per nesting level, so a deep enough document overflows the stack.
    if (err instanceof RangeError) throw refuse('QUERY_TOO_DEEP', 'The document is nested too deeply to parse');
    throw err;
  }
}

function selectOperation(doc: DocumentNode, operationName: unknown): OperationDefinitionNode {
  const operations = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  // An empty name names no operation, as graphql-js and Apollo read it (the gateway answered it 500).
  const name = typeof operationName === 'string' ? operationName : undefined;
  const chosen =
    name === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === name);
  if (chosen) return chosen;
  // graphql-js's own words, as a 400 (the gateway's query planner answered 500 INVALID_GRAPHQL).
  throw refuse(
    'OPERATION_RESOLUTION_FAILURE',
    name !== undefined
      ? `Unknown operation named "${name}".`
      : operations.length
        ? 'Must provide operation name if query contains multiple operations.'
        : 'Must provide an operation.',
  );
}

function check(query: string, operationName: unknown, limits: GraphqlLimits, servesSubscriptions: boolean): void {
  const doc = parseBounded(query, limits.maxTokens);
  const operation = selectOperation(doc, operationName);
  if (operation.operation === OperationTypeNode.SUBSCRIPTION && !servesSubscriptions) {
    throw refuse('SUBSCRIPTIONS_NOT_SUPPORTED', 'Subscriptions are not served at this endpoint');
  }
  const size = measure(doc, operation);
  if (size.depth > limits.maxDepth)
    throw refuse('QUERY_TOO_DEEP', `The operation is nested ${size.depth} levels deep; the limit is ${limits.maxDepth}`);
  if (size.aliases > limits.maxAliases)
    throw refuse('TOO_MANY_ALIASES', `The operation uses ${size.aliases} aliases; the limit is ${limits.maxAliases}`);
  if (size.cost > limits.maxCost)
    throw refuse('QUERY_TOO_COSTLY', `The operation selects ${size.cost} fields, fragments expanded; the limit is ${limits.maxCost}`);
  if (size.defers > limits.maxDefers) {
    throw refuse('TOO_MANY_DEFERS', `The operation defers ${size.defers} parts (@defer, @stream); the limit is ${limits.maxDefers}`);
  }
  if (operation.operation === OperationTypeNode.MUTATION && size.roots > limits.maxMutations) {
    throw refuse('TOO_MANY_MUTATIONS', `The operation runs ${size.roots} mutations; the limit is ${limits.maxMutations} per request`);
  }
}

/**
 * Whether a document's one operation stays within `limits` (tokens, depth, aliases, cost, defers,
 * mutations): throws the BadRequest the document guard would answer, with its code. For documents
 * checked before any request sends them (a trusted document list loaded).
 */
export function checkOperationBounds(query: string, limits: GraphqlLimits): void {
  if (query.length > limits.maxDocumentChars)
    throw refuse('QUERY_TOO_LARGE', `The document is longer than ${limits.maxDocumentChars} characters, the limit`);
  check(query, undefined, limits, true);
}

/** The query, operationName and variables of a request, read as Apollo reads them (POST JSON body, GET query string). */
function requested(req: Request): { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } {
  if (req.method === 'POST') {
    const body: unknown = req.body;
    if (Array.isArray(body))
      throw refuse('BATCHING_NOT_SUPPORTED', 'Batched requests (a JSON array) are not supported: send one operation per request');
    return typeof body === 'object' && body !== null ? body : {};
  }
  if (req.method !== 'GET') return {};
  const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  // A repeated parameter is left to Apollo, which refuses it.
  const once = (name: string) => (params.getAll(name).length === 1 ? params.get(name)! : undefined);
  return { query: once('query'), operationName: once('operationName'), variables: once('variables'), extensions: once('extensions') };
}

/**
 * Express middleware for a GraphQL endpoint, between the body parser and Apollo. A syntax error goes
 * on to Apollo, whose answer (with locations) is the better one; so does a request without a query
 * string (a persisted-query hash, the landing page), which is Apollo's to judge.
 */
export function documentGuard(limits: GraphqlLimits, servesSubscriptions: () => boolean): RequestHandler {
  // Documents that passed, so a client's usual operations are parsed and measured once (a bounded
  // set of small texts; refusals are not remembered, so hostile variety cannot fill it).
  const passed = new Set<string>();
  return (req, _res, next) => {
    try {
      const { query, operationName, variables, extensions } = requested(req);
      boundRequestJson(variables, extensions, limits.maxVariableValues);
      if (typeof query === 'string') {
        if (query.length > limits.maxDocumentChars) {
          throw refuse('QUERY_TOO_LARGE', `The document is longer than ${limits.maxDocumentChars} characters, the limit`);
        }
        const key = `${servesSubscriptions() ? 's' : 'n'}${JSON.stringify(typeof operationName === 'string' ? operationName : null)}\0${query}`;
        if (!passed.has(key)) {
          check(query, operationName, limits, servesSubscriptions());
          if (query.length <= 8192) {
            if (passed.size >= 1000) passed.delete(passed.values().next().value!);
            passed.add(key);
          }
        }
      }
    } catch (err) {
      return next(err instanceof GraphQLError ? undefined : err);
    }
    next();
  };
}
