import type { RequestHandler } from 'express';
import type { IntrospectionCache } from './introspection';

/** Accept values whose answer is Apollo Server's `application/json` (what fetch and curl send, or nothing). */
const plainJson = (accept: string | undefined) =>
  !accept || accept.split(',').every((part) => ['*/*', 'application/json'].includes(part.split(';')[0].trim().toLowerCase()));

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0);

/**
 * Express middleware before Apollo Server: a plain JSON POST of an introspection this server has
 * already answered (the same text and operation name, validated and executed once through Apollo,
 * see IntrospectionCache) gets the stored body as Apollo wrote it, without Apollo's pipeline or
 * serialisation, the larger part of what such a request still cost. Everything else (other Accept
 * types, variables, extensions such as a persisted-query hash, GET) goes on to Apollo, which
 * answers introspection from the same cache.
 */
export function cachedIntrospection(cache: IntrospectionCache): RequestHandler {
  return (req, res, next) => {
    const body = req.body as { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } | undefined;
    if (req.method !== 'POST' || typeof body?.query !== 'string' || !plainJson(req.get('accept'))) return next();
    if (!isEmpty(body.variables) || body.extensions !== undefined) return next();
    const operationName = body.operationName;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return next();
    const answer = cache.body(body.query, operationName);
    if (!answer) return next();
    res.status(200).set({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(answer);
  };
}
