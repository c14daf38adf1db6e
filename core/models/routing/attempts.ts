import { BadRequest, PlatformError, RateLimited, UpstreamFailed, UpstreamTimeout } from '../../shared/errors';
import { backoff } from '../../shared/http/retry';
import type { Routing } from '../catalog/catalog';
import { vendorAnswerOf } from '../upstream/errors';
import type { FailureKind } from './health';

/** The longest cooldown a vendor's `Retry-After` may start (an hour: a day-long one is a misconfiguration, not a plan). */
export const MAX_COOLDOWN_MS = 3_600_000;

/**
 * What one failed attempt means to the call (issue 35):
 * - `caller`: the caller's own mistake (a vendor's 400/413/422, a request the gateway cannot send):
 *   no other deployment would answer differently, so it reaches the caller at once;
 * - `retry`: worth another try on the same deployment (a status of `retry.on`, a failed connection,
 *   a timeout, a stream broken before its first piece), after `waitMs` when the vendor named a wait;
 * - `next`: this deployment will not do (a vendor's 401/403/404: misconfigured; a status not in
 *   `retry.on`; a `Retry-After` longer than `maxRetryAfterMs`, which cools it down `until` then).
 * Every verdict but `caller` counts as a failure of the deployment (health.failed).
 */
export type Verdict =
  | { kind: 'caller' }
  | { kind: 'retry'; failure: FailureKind; what: string; waitMs?: number }
  | { kind: 'next'; failure: FailureKind; what: string; until?: number };

const CALLER_STATUSES = new Set([400, 413, 422]);

export function judge(err: unknown, retry: Routing['retry'], now: number): Verdict {
  const answer = vendorAnswerOf(err);
  if (answer) {
    const status = answer.upstreamStatus;
    const what = String(status);
    // Gemini's bad API key is a 400 mapped to upstream_misconfigured: the gateway's, not the caller's.
    if (CALLER_STATUSES.has(status) && err instanceof BadRequest) return { kind: 'caller' };
    if (!retry.on.includes(status)) return { kind: 'next', failure: 'status', what };
    const wait = answer.retryAfterMs ?? (err instanceof RateLimited ? err.retryAfterSeconds * 1000 : undefined);
    if (wait !== undefined && wait > retry.maxRetryAfterMs) {
      return { kind: 'next', failure: 'status', what, until: now + Math.min(wait, MAX_COOLDOWN_MS) };
    }
    return { kind: 'retry', failure: 'status', what, ...(wait !== undefined && { waitMs: wait }) };
  }
  if (err instanceof UpstreamTimeout) return { kind: 'retry', failure: 'timeout', what: 'timeout' };
  if (err instanceof BadRequest || !(err instanceof PlatformError)) return { kind: 'caller' };
  if (err instanceof UpstreamFailed && err.code === 'upstream_misconfigured') return { kind: 'next', failure: 'status', what: err.code };
  if (err instanceof UpstreamFailed || err instanceof RateLimited) {
    return { kind: 'retry', failure: 'connection', what: err.code ?? 'connection' };
  }
  return { kind: 'caller' };
}

/** The wait before retry `n` (0: the first): the vendor's named wait, else exponential backoff with jitter. */
export const retryWait = (v: Extract<Verdict, { kind: 'retry' }>, retry: Routing['retry'], n: number, random: () => number) =>
  v.waitMs ?? backoff(retry.backoffMs, n, random);
