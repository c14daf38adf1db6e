import type { RequestHandler } from 'express';

/**
 * CORS for browser apps on other origins (frontend teams calling /graphql or the REST paths).
 * Only origins listed in CORS_ORIGINS (or every origin with `*`) get CORS headers; preflights from
 * them are answered 204 here. Credentials travel in headers (Authorization, api-key), never cookies.
 */
const ALLOWED_HEADERS =
  'authorization, content-type, api-key, x-request-id, apollo-require-preflight, x-apollo-operation-name, x-graphql-event-stream-token, accept';
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

export const cors = (origins: readonly string[]): RequestHandler => {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (!origin || !(any || allowed.has(origin))) return next();
    res.set('Access-Control-Allow-Origin', any ? '*' : origin);
    if (!any) res.vary('Origin');
    res.set('Access-Control-Expose-Headers', 'x-request-id, x-cache');
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.set({
        'Access-Control-Allow-Methods': METHODS,
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      });
      return void res.status(204).end();
    }
    next();
  };
};
