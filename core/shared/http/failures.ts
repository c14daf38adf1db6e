import { PlatformError, UpstreamFailed, UpstreamTimeout } from '../errors';

/**
 * What a failed exchange (no usable status) means to the caller, whoever was on the other side:
 * - a connect timeout, or silence past the read timeout: 504 `upstream_timeout`;
 * - a refused or unreachable connection ("is unreachable"), one reset or closed ("the connection failed"): 502 `upstream_unavailable`;
 * - anything else on the wire: 502 `upstream_error`.
 * The caller's own abort is not a failure of the other side: it comes back as the signal's reason.
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
/** No connection was made at all (as opposed to one that broke). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The error code of a transport failure, looking through wrappers (AggregateError of happy eyeballs, causes). */
export function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string') return e.code;
  return codeOf(e.cause) ?? (Array.isArray(e.errors) ? codeOf(e.errors[0]) : undefined);
}

/** A failed connection: worth another attempt while nothing of the answer was handed out. */
export const isConnectionFailure = (err: unknown) => CONNECTION_CODES.has(codeOf(err) ?? '');

/** The signal's reason when the caller aborted (whatever error the abort surfaced as), else undefined. */
export const abortedBy = (signal: AbortSignal | undefined, err: unknown): unknown => (signal?.aborted ? (signal.reason ?? err) : undefined);

/** A transport failure as the platform's error; `who` names the other side (`Gemini`, `http://search:8080`). */
export function transportError(who: string, err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  const code = codeOf(err) ?? '';
  if (TIMEOUT_CODES.has(code) || (err as Error)?.name === 'TimeoutError') {
    const what = code === 'UND_ERR_BODY_TIMEOUT' ? 'went silent midway' : 'did not answer in time';
    return new UpstreamTimeout(`${who} ${what}`, { code: 'upstream_timeout', cause: err });
  }
  if (UNREACHABLE_CODES.has(code))
    return new UpstreamFailed(`${who} is unreachable (${code})`, { code: 'upstream_unavailable', cause: err });
  if (CONNECTION_CODES.has(code) || code.startsWith('ERR_HTTP2')) {
    return new UpstreamFailed(`The connection to ${who} failed${code ? ` (${code})` : ''}`, { code: 'upstream_unavailable', cause: err });
  }
  return new UpstreamFailed(`${who} failed`, { code: 'upstream_error', cause: err });
}

/** An answer the caller cannot read (not JSON, too big, cut before its end). */
export const unreadable = (who: string, what: string) =>
  new UpstreamFailed(`${who} sent an answer that cannot be read (${what})`, { code: 'upstream_bad_response' });
