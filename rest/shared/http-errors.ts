import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import { isBearerError, type BearerError } from '../../core/shared/auth/caller';
import {
  BadRequest, InternalError, PayloadTooLarge, PlatformError, UnsupportedMediaType, type ErrorKind,
} from '../../core/shared/errors';
import { bodyTooDeep } from '../../edge/http/json-body';

/** The only place that picks a status. Record<> makes a new kind a compile error. */
export const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  upstream_timeout: 504,
};

/** How one service words its error bodies (the status is decided here, not there). */
export type ErrorBody = (err: PlatformError, status: number) => unknown;

/** DECISIONS: `{"detail": ...}`; a 422's detail is the list of issues. */
export const detailBody: ErrorBody = (err) => ({ detail: 'issues' in err ? err.issues : err.message });

/** Errors raised by express's body parsers (http-errors objects with a `type`) become ours. */
export function fromBodyParser(err: unknown): PlatformError | undefined {
  const type = (err as { type?: unknown })?.type;
  switch (type) {
    case 'entity.parse.failed': return new BadRequest('Malformed JSON body', { code: 'invalid_request' });
    case 'entity.too.large': return new PayloadTooLarge('Request body too large', { code: 'invalid_request' });
    case 'entity.too.deep': return bodyTooDeep(err);
    case 'encoding.unsupported':
    case 'charset.unsupported': return new UnsupportedMediaType('Unsupported body encoding', { code: 'invalid_request' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'parameters.too.many': return new BadRequest('Unreadable request body', { code: 'invalid_request' });
    default: return clientFault(err);
  }
}

/**
 * Other 4xx errors express raises before a handler runs are the caller's fault, never a 500:
 * a path parameter with a broken %-escape (URIError from the router), a corrupt gzip/deflate body.
 */
function clientFault(err: unknown): PlatformError | undefined {
  const status = (err as { status?: unknown })?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (err instanceof URIError) return new BadRequest('Malformed URL', { code: 'invalid_request' });
  return new BadRequest('Unreadable request body', { code: 'invalid_request' });
}

/** RFC 6750 §3: the challenge of a bearer-protected resource. */
export function bearerChallenge(e: BearerError): string {
  const realm = 'Bearer realm="platform"';
  if (e.bearerError === null) return realm;
  const extra = 'required' in e ? `, scope="${e.required.join(' ')}"` : '';
  return `${realm}, error="${e.bearerError}", error_description="${e.message.replace(/["\\]/g, '')}"${extra}`;
}

export function toPlatformError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  return fromBodyParser(err) ?? new InternalError('Internal server error', { cause: err });
}

/** Express error middleware for one service; keep all four parameters (express counts them). */
export const httpErrors = (log: Logger, body: ErrorBody = detailBody): ErrorRequestHandler =>
  (err, req, res, _next) => {
    const e = toPlatformError(err);
    const status = STATUS[e.kind];
    if (!e.expose) {
      log.error({ err: e.cause ?? e, reqId: requestIdOf(req), path: req.path }, 'unhandled error');
    }
    if (res.headersSent) return void res.end();
    if ('allow' in e && Array.isArray(e.allow)) res.setHeader('Allow', e.allow.join(', '));
    if (isBearerError(e)) res.setHeader('WWW-Authenticate', bearerChallenge(e));
    if ('retryAfterSeconds' in e && typeof e.retryAfterSeconds === 'number') res.setHeader('Retry-After', String(e.retryAfterSeconds));
    const shown = e.expose ? e : new InternalError('Internal server error');
    const format = (res.locals.errorBody as ErrorBody | undefined) ?? body;
    res.status(status).json(format(shown, status));
  };

export const requestIdOf = (req: Request): string | undefined => (req as Request & { id?: string }).id;
