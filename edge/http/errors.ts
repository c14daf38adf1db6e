import { BadRequest, InternalError, PayloadTooLarge, PlatformError, UnsupportedMediaType, type ErrorKind } from '../../core/shared/errors';
import { bodyTooDeep } from './json-body';
import { asUnavailable } from '../../core/shared/unavailable';

/**
 * The HTTP meaning of the platform's errors, for every face that answers over HTTP (the REST routes,
 * the GraphQL servers' refusals before an operation runs) and for usage records.
 */
/** The only place that picks a status. Record<> makes a new kind a compile error. */
export const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  upstream_timeout: 504,
  unavailable: 503,
};

/** Errors raised by express's body parsers (http-errors objects with a `type`) become ours. */
export function fromBodyParser(err: unknown): PlatformError | undefined {
  const type = (err as { type?: unknown })?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new BadRequest('Malformed JSON body', { code: 'invalid_request' });
    case 'entity.too.large':
      return new PayloadTooLarge('Request body too large', { code: 'invalid_request' });
    case 'entity.too.deep':
      return bodyTooDeep(err);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaType('Unsupported body encoding', { code: 'invalid_request' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'parameters.too.many':
      return new BadRequest('Unreadable request body', { code: 'invalid_request' });
    default:
      return clientFault(err);
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

export function toPlatformError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  return fromBodyParser(err) ?? asUnavailable(err) ?? new InternalError('Internal server error', { cause: err });
}
