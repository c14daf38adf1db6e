import { setTimeout as sleep } from 'node:timers/promises';
import { isConnectionFailure } from './failures';

/**
 * When an exchange is tried again. The transport only retries before any byte of the answer was
 * handed out (it retries the head, never a body being read):
 * - an answer whose status the policy names (a vendor: 429 and 5xx; our own services: 429 and 503);
 * - a failed connection, when the policy backs off (`backoffMs`) at all;
 * - the wait is the answer's `retry-after-ms` (Azure) or `Retry-After` (seconds or an HTTP date),
 *   else exponential backoff with jitter; without `backoffMs` only an answer naming its wait is retried;
 * - a wait the other side names must fit, with the waits before it, in `budgetMs`: a longer one makes
 *   the answer final, so its own caller learns the wait (a 429 with its Retry-After) at once;
 * - a wait ends at once, with the signal's reason, when the caller aborts.
 */
export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** The statuses worth another attempt. */
  retryStatus(status: number): boolean;
  /** The first backoff delay, doubled per attempt, with jitter. */
  backoffMs?: number;
  /** The longest total wait of one call that the other side may ask for. */
  budgetMs: number;
}

export type HeaderBag = Record<string, string | string[] | undefined>;

const header = (h: HeaderBag, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const NUMBER = /^\d+(\.\d+)?$/;
const HTTP_DATE = /^[A-Za-z]{3}/;

/** Azure's `retry-after-ms`, else `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP date), in milliseconds. */
export function retryAfterMs(h: HeaderBag, now = Date.now()): number | undefined {
  const precise = header(h, 'retry-after-ms')?.trim();
  if (precise && NUMBER.test(precise)) return Number(precise);
  const v = header(h, 'retry-after')?.trim();
  if (!v) return undefined;
  if (NUMBER.test(v)) return Number(v) * 1000;
  // Every HTTP-date form starts with the day's name; Date.parse alone would read '-3' as a year.
  if (!HTTP_DATE.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

// Jitter around the doubled delay keeps a crowd of retrying calls from hitting the other side in step.
export const backoff = (baseMs: number, attempt: number, random = Math.random) => baseMs * 2 ** attempt * (0.5 + random() / 2);

/** What went wrong with one attempt: an answer with an unwanted status, or no answer at all. */
export type Failed = { status: number; headers: HeaderBag } | { error: unknown };

/** The wait before attempt `attempt + 1` (0 is the first retry), or undefined when this failure is final. */
export function retryDelay(policy: RetryPolicy, attempt: number, waitedMs: number, failed: Failed, now = Date.now()): number | undefined {
  if (attempt >= policy.retries) return undefined;
  if ('error' in failed) {
    return policy.backoffMs !== undefined && isConnectionFailure(failed.error) ? backoff(policy.backoffMs, attempt) : undefined;
  }
  if (!policy.retryStatus(failed.status)) return undefined;
  const named = retryAfterMs(failed.headers, now);
  if (named === undefined) return policy.backoffMs === undefined ? undefined : backoff(policy.backoffMs, attempt);
  return waitedMs + named <= policy.budgetMs ? named : undefined;
}

/** Sleeps `ms`, unless the signal aborts first: then rejects with its reason. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (err) {
    throw signal?.aborted ? (signal.reason ?? err) : err;
  }
}
