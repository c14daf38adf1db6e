import type { Request, RequestHandler } from 'express';
import { isPlainObject } from '../../core/shared/validation';
import type { OperationPayload } from '../../edge/graphql/prepare';
import { refusal } from '../../edge/graphql/prepare';
import type { GraphQLError } from 'graphql';
import type { TrustedDocuments } from './enforce';

/** Extensions without Apollo's persisted-query entry (undefined when nothing else is left). */
function withoutPersistedQuery(extensions: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(extensions)) return undefined;
  const { persistedQuery: _dropped, ...rest } = extensions;
  return Object.keys(rest).length ? rest : undefined;
}

/** A GET's parameters rewritten to carry `query` in place of its id (req.url and req.originalUrl, which the later handlers read). */
function rewriteGet(req: Request, params: URLSearchParams, query: string): void {
  params.delete('documentId');
  params.set('query', query);
  let extensions: unknown;
  try {
    extensions = JSON.parse(params.get('extensions') ?? 'null');
  } catch {
    extensions = undefined;
  }
  const rest = withoutPersistedQuery(extensions);
  if (rest) params.set('extensions', JSON.stringify(rest));
  else params.delete('extensions');
  const search = `?${params.toString()}`;
  req.url = req.url.split('?')[0] + search;
  req.originalUrl = req.originalUrl.split('?')[0] + search;
}

/**
 * Express middleware at /graphql, after the JSON body parser and before the document guard: a
 * request by id (`documentId`, or Apollo's `extensions.persistedQuery.sha256Hash` without a query)
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
      const decision = trusted.decide(body);
      if (decision.kind === 'refused') return next(decision.error);
      if (decision.kind === 'resolved') {
        const { documentId: _id, extensions: _e, ...rest } = body;
        const extensions = withoutPersistedQuery(body.extensions);
        // Apollo refuses an `extensions` key that is not an object, undefined included.
        req.body = { ...rest, query: decision.query, ...(extensions ? { extensions } : {}) };
      }
      return next();
    }
    if (req.method !== 'GET') return next();
    const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    let extensions: unknown;
    try {
      extensions = JSON.parse(params.get('extensions') ?? 'null');
    } catch {
      // Not JSON: Apollo Server answers that itself.
      return next();
    }
    const decision = trusted.decide({
      query: params.get('query') ?? undefined,
      documentId: params.get('documentId') ?? undefined,
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
  return (payload: OperationPayload & { documentId?: unknown; extensions?: unknown }): OperationPayload | GraphQLError => {
    const decision = trusted.decide(payload);
    if (decision.kind === 'refused') return refusal(decision.error.message, decision.error.code!);
    if (decision.kind === 'pass') return payload;
    const { documentId: _id, extensions: _e, ...rest } = payload;
    const extensions = withoutPersistedQuery(payload.extensions);
    return { ...rest, query: decision.query, ...(extensions ? { extensions } : {}) };
  };
}
