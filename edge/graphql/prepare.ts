import type { Request, Response } from 'express';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { PlatformError } from '../../core/shared/errors';
import { refusalExtensions } from './errors';
import { documentGuard, extraRules, type GraphqlLimits } from './limits';

/** An operation as a streaming transport receives it (graphql-ws `subscribe`, a GraphQL over SSE body). */
export interface OperationPayload {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

const withCode = (e: GraphQLError, code: string) =>
  new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, code } });
export const refusal = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/** The document guard of the HTTP endpoint (size, depth, aliases, cost, mutations), on one payload. */
function guard(limits: GraphqlLimits) {
  const check = documentGuard(limits, () => true);
  return (payload: unknown): GraphQLError | undefined => {
    let refused: unknown;
    check({ method: 'POST', body: payload } as Request, {} as Response, (err?: unknown) => void (refused = err));
    if (refused instanceof PlatformError) return new GraphQLError(refused.message, { extensions: refusalExtensions(refused) });
    return refused ? refusal('Internal server error', 'INTERNAL_SERVER_ERROR') : undefined;
  };
}

/** Whether a prepared operation was refused (Array.isArray would read the readonly list as any[]). */
export const isRefusal = (prepared: DocumentNode | readonly GraphQLError[]): prepared is readonly GraphQLError[] => Array.isArray(prepared);

/**
 * Readies an operation that arrives outside Apollo Server: bounded by the same limits as over HTTP
 * before it is parsed, parsed with the token cap, validated with the same rules (introspection off
 * when `introspection` is false). Refusals are coded GraphQLErrors (GRAPHQL_PARSE_FAILED,
 * GRAPHQL_VALIDATION_FAILED, the guard's codes), as Apollo codes them over HTTP. A valid document
 * is returned again, the same object, for the same text: callers must not change it.
 */
export function operationPreparer(schema: GraphQLSchema, limits: GraphqlLimits, introspection = true) {
  const bounded = guard(limits);
  const rules = [...specifiedRules, ...extraRules, ...(introspection ? [] : [NoSchemaIntrospectionCustomRule])];
  // Valid documents by text, so a client's usual operations (500 subscribers asking the same one)
  // are parsed and validated once: a bounded set of small texts, refusals never remembered (as the
  // document guard's verdicts, limits.ts). The guard still judges every payload (its variables).
  const valid = new Map<string, DocumentNode>();
  return (payload: OperationPayload): DocumentNode | readonly GraphQLError[] => {
    const refused = bounded(payload);
    if (refused) return [refused];
    const known = valid.get(payload.query);
    if (known) return known;
    let document;
    try {
      document = parse(payload.query, { maxTokens: limits.maxTokens });
    } catch (err) {
      return [withCode(err as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
    }
    const invalid = validate(schema, document, rules);
    if (invalid.length) return invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED'));
    if (payload.query.length <= MAX_REMEMBERED_CHARS) {
      if (valid.size >= MAX_REMEMBERED) valid.delete(valid.keys().next().value!);
      valid.set(payload.query, document);
    }
    return document;
  };
}

/** Valid documents a preparer remembers, each at most this long (at most 8 MiB of text in all). */
const MAX_REMEMBERED = 1000;
const MAX_REMEMBERED_CHARS = 8192;
