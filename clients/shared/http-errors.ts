import {
  BadRequest,
  Conflict,
  Forbidden,
  NotFound,
  PayloadTooLarge,
  PlatformError,
  PreconditionFailed,
  RateLimited,
  Unauthenticated,
  UnsupportedMediaType,
  UpstreamFailed,
  UpstreamTimeout,
  ValidationFailed,
  type ValidationIssue,
} from '../../core/shared/errors';

/** A service's error answers turned back into the platform's errors: a remote service throws what the in-process one would. */
type ErrorClass = new (message: string, options: { code?: string }) => PlatformError;
const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequest,
  401: Unauthenticated,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  412: PreconditionFailed,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  504: UpstreamTimeout,
};
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Maps an error answer: `{"detail"}` (token, chat; a list for 422; OAuth `error` kept as the code),
 * `{"status":"error","message"}` (search), `{"error":{"message","code"|"type"}}` (model providers).
 */
export function errorFromResponse(status: number, body: unknown, retryAfterSeconds = 1): PlatformError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const inner = (typeof b.error === 'object' && b.error !== null ? b.error : {}) as Record<string, unknown>;
  const code = text(b.error) ?? text(inner.code) ?? text(inner.type);
  const detail = b.detail ?? b.message ?? inner.message ?? b.error_description;
  const message = text(detail) ?? `HTTP ${status}`;
  if (status === 422) {
    return new ValidationFailed(Array.isArray(detail) ? (detail as ValidationIssue[]) : [{ loc: [], msg: message, type: 'value_error' }]);
  }
  if (status === 429) return new RateLimited(message, retryAfterSeconds, { code });
  const Known = BY_STATUS[status];
  if (Known) return new Known(message, { code });
  // A service's own 502 names what failed behind it: it is already the platform's UpstreamFailed, word for word.
  if (status === 502 && text(detail) !== undefined) return new UpstreamFailed(message, { code });
  return new UpstreamFailed(`upstream answered ${status}: ${message}`, { code });
}
