import type { RequestHandler, Response } from 'express';
import type { WebOrigins } from '../../edge/http/web-origins';

/**
 * CORS for browser apps on other origins (frontend teams calling /graphql or the REST paths).
 * Origins listed in CORS_ORIGINS (or every origin with `*`), and those a client of the token
 * service registered as its web origins, get CORS headers; preflights from them are answered 204
 * here. Credentials travel in headers (Authorization, api-key); no API reads a cookie. A
 * registered origin is also told `Access-Control-Allow-Credentials: true`, as Keycloak tells its
 * web origins: keycloak-js calls the token endpoint with `credentials: 'include'`, which a browser
 * refuses without it (the sign-in pages, which read cookies, take these headers off).
 */
const ALLOWED_HEADERS =
  'authorization, content-type, api-key, x-request-id, apollo-require-preflight, x-apollo-operation-name, x-graphql-event-stream-token, accept';
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

export const cors = (origins: readonly string[], registered?: WebOrigins): RequestHandler => {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const answer = (req: Parameters<RequestHandler>[0], res: Response, origin: string, next: () => void, credentials = false) => {
    res.set('Access-Control-Allow-Origin', any ? '*' : origin);
    if (credentials) res.set('Access-Control-Allow-Credentials', 'true');
    if (!any) res.vary('Origin');
    res.set('Access-Control-Expose-Headers', 'x-request-id, x-cache, x-cache-similarity, x-platform-deployment, age');
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
  return (req, res, next) => {
    const origin = req.get('origin');
    if (!origin) return next();
    if (any || allowed.has(origin)) return answer(req, res, origin, next);
    // A page of the platform itself (GraphiQL, the console) needs no CORS: not a reason to read the registered list again.
    if (!registered || origin.length > 300 || origin === `${req.protocol}://${req.get('host') ?? ''}`) return next();
    // An answer that differs by Origin says so, for caches, whichever way it goes.
    res.vary('Origin');
    registered.allowed(origin).then(
      (ok) => (ok ? answer(req, res, origin, next, true) : next()),
      () => next(),
    );
  };
};
