import type { RequestHandler } from 'express';
import { isPlainObject } from '../../core/shared/validation';
import { getExtensions, getParams, INVALID, rewriteGet, withQuery } from '../operation-rewrite';
import type { OperationPayload } from '../../edge/graphql/prepare';
import { refusal } from '../../edge/graphql/prepare';
import type { GraphQLError } from 'graphql';
import type { TrustedDocuments } from './enforce';

/** The id a request names a document by: GraphQL over HTTP's `documentId`, or `doc_id` as Relay's persisted queries send it. */
const idOf = (op: { documentId?: unknown; doc_id?: unknown }): unknown => op.documentId ?? op.doc_id;

/**
 * Express middleware at /graphql, after the JSON body parser and before the document guard: a
 * request by id (`documentId`, Relay's `doc_id`, or Apollo's `extensions.persistedQuery.sha256Hash` without a query)
 * becomes a request with the listed text, GET and POST, so every later handler (the guard, GraphQL
 * over SSE and multipart, Apollo Server) sees an ordinary operation; an operation the mode refuses
 * is answered 400 with its code (graphqlHttpErrors). Batches (a JSON array) go on to the guard,
 * which refuses them.
 */
export function trustedDocumentsMiddleware(trusted: TrustedDocuments): RequestHandler {
  return (req, _res, next) => {
    if (req.method === 'POST') {
      const body: unknown = req.body;
      if (!isPlainObject(body)) return next();
      const decision = trusted.decide({ query: body.query, documentId: idOf(body), extensions: body.extensions });
      if (decision.kind === 'refused') return next(decision.error);
      if (decision.kind === 'resolved') req.body = withQuery(body, decision.query);
      return next();
    }
    if (req.method !== 'GET') return next();
    const params = getParams(req);
    const extensions = getExtensions(params);
    // Not JSON: Apollo Server answers that itself.
    if (extensions === INVALID) return next();
    const decision = trusted.decide({
      query: params.get('query') ?? undefined,
      documentId: params.get('documentId') ?? params.get('doc_id') ?? undefined,
      extensions,
    });
    if (decision.kind === 'refused') return next(decision.error);
    if (decision.kind === 'resolved') rewriteGet(req, params, decision.query);
    next();
  };
}

/**
 * The same policy for an operation arriving over graphql-ws: its payload with the listed text in
 * place of its id (`query: ""` and `documentId`, or Apollo's extension), or a coded refusal.
 */
export function trustedPayload(trusted: TrustedDocuments) {
  return (
    payload: OperationPayload & { documentId?: unknown; doc_id?: unknown; extensions?: unknown },
  ): OperationPayload | GraphQLError => {
    const decision = trusted.decide({ query: payload.query, documentId: idOf(payload), extensions: payload.extensions });
    if (decision.kind === 'refused') return refusal(decision.error.message, decision.error.code!);
    if (decision.kind === 'pass') return payload;
    return withQuery({ ...payload }, decision.query) as unknown as OperationPayload;
  };
}
