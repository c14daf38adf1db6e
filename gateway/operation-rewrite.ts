import type { Request } from 'express';
import { isPlainObject } from '../core/shared/validation';

/**
 * Requests by id made requests by text, for the middlewares that resolve ids before every
 * transport (trusted documents: gateway/trusted/middleware.ts; automatic persisted queries:
 * gateway/apq.ts): later handlers then see an ordinary operation, and nothing registers or
 * checks the id again.
 */

/** Extensions without Apollo's persisted-query entry (undefined when nothing else is left). */
export function withoutPersistedQuery(extensions: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(extensions)) return undefined;
  const { persistedQuery: _dropped, ...rest } = extensions;
  return Object.keys(rest).length ? rest : undefined;
}

/** A GET's query-string parameters, as sent. */
export const getParams = (req: Request): URLSearchParams => new URLSearchParams(req.originalUrl.split('?')[1] ?? '');

/** A GET's `extensions` parameter as JSON; undefined when absent, `invalid` when not JSON (Apollo Server answers that itself). */
export function getExtensions(params: URLSearchParams): unknown {
  try {
    return JSON.parse(params.get('extensions') ?? 'null');
  } catch {
    return INVALID;
  }
}
export const INVALID = Symbol('invalid');

/** A POST body carrying `query` in place of its ids (`documentId`, Relay's `doc_id`, Apollo's persisted-query extension). */
export function withQuery(body: Record<string, unknown>, query: string): Record<string, unknown> {
  const { documentId: _id, doc_id: _relay, extensions: _e, ...rest } = body;
  const extensions = withoutPersistedQuery(body.extensions);
  // Apollo refuses an `extensions` key that is not an object, undefined included.
  return { ...rest, query, ...(extensions ? { extensions } : {}) };
}

/** A GET's parameters rewritten to carry `query` in place of its ids (req.url and req.originalUrl, which the later handlers read). */
export function rewriteGet(req: Request, params: URLSearchParams, query: string): void {
  params.delete('documentId');
  params.delete('doc_id');
  params.set('query', query);
  const extensions = getExtensions(params);
  const rest = withoutPersistedQuery(extensions === INVALID ? undefined : extensions);
  if (rest) params.set('extensions', JSON.stringify(rest));
  else params.delete('extensions');
  const search = `?${params.toString()}`;
  req.url = req.url.split('?')[0] + search;
  req.originalUrl = req.originalUrl.split('?')[0] + search;
}
