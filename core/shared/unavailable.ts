import { PlatformError, Unavailable } from './errors';

/** Seconds a caller is asked to wait when a store is down: long enough for a restart to begin to show. */
export const STORE_RETRY_AFTER_SECONDS = 2;

// PostgreSQL SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 53300
// (too many connections), 57P01-57P03 (shutting down, crashed, starting up).
const PG_UNAVAILABLE = /^(08...|53300|57P0[123])$/;
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// What pg, pg-pool and ioredis say when their connection is gone (they set no code).
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Connection is closed\.$/,
  /^Command timed out$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
];

/**
 * A failure of a store's connection (PostgreSQL restarting, Redis unreachable), as the 503 with
 * Retry-After a caller should see instead of a 500; undefined for anything else. Every transport
 * maps errors through this once (edge/http/errors.ts, edge/graphql/errors.ts).
 */
export function asUnavailable(err: unknown): Unavailable | undefined {
  if (err instanceof PlatformError || !(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  const down =
    (typeof code === 'string' && (PG_UNAVAILABLE.test(code) || NET_CODES.has(code) || code === 'SQLITE_BUSY')) ||
    MESSAGES.some((m) => m.test(err.message));
  return down
    ? new Unavailable('The service cannot reach its database right now; try again shortly.', STORE_RETRY_AFTER_SECONDS, {
        cause: err,
        code: 'store_unavailable',
      })
    : undefined;
}
