import type { Clock } from '../../shared/clock';
import { RateLimited } from '../../shared/errors';
import type { ApiKey } from './keys';
import type { LimitCounters } from '../ports';

/**
 * A key's limits (`platform key create --rpm N --token-budget N`), counted where every process
 * serving the gateway sees the same numbers (models.db in the embedded default):
 * - requests per minute: at most N requests admitted in any 60 s (a sliding window); a refused
 *   request is not counted;
 * - token budget: tokens in and out per calendar month (UTC), counted when each call ends; a call
 *   is admitted while the month's count is under the budget, so calls already running when it is
 *   reached may take it past by their own tokens.
 * Both answer 429 with `Retry-After`.
 *
 * When the counts cannot be read (Redis unreachable or too slow: its commands time out), the call
 * is admitted and the failure reported through `onError`: the limits fail open, so an outage of the
 * shared counter stops no one's calls; usage still records every call (docs/redis.md).
 */
export interface LimitsDeps {
  clock: Clock;
  counters: LimitCounters;
  /** Told when a call's tokens could not be counted. */
  onError?: (err: unknown) => void;
}

export const RATE_WINDOW_MS = 60_000;

export const monthStart = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

export function keyLimits(deps: LimitsDeps) {
  const { clock, counters } = deps;
  return {
    /** Checks the key's budget, then takes one request from its minute; throws RateLimited (429). */
    async admit(key: ApiKey): Promise<void> {
      const now = clock.now();
      const failedOpen = (err: unknown) => {
        deps.onError?.(err);
        return undefined;
      };
      if (key.tokenBudget !== null && ((await counters.tokensSpent(key.id, monthStart(now)).catch(failedOpen)) ?? 0) >= key.tokenBudget) {
        throw new RateLimited(
          `This key has used its budget of ${key.tokenBudget} tokens for the month.`,
          Math.ceil((nextMonth(now) - now) / 1000),
          { code: 'insufficient_quota' },
        );
      }
      const rpm = key.requestsPerMinute;
      if (rpm === null) return;
      const taken = await counters.takeRequest(key.id, rpm, RATE_WINDOW_MS, now).catch(failedOpen);
      if (taken && !taken.admitted) {
        throw new RateLimited(`This key is limited to ${rpm} requests per minute.`, Math.max(1, Math.ceil((taken.retryAt - now) / 1000)), {
          code: 'rate_limit_exceeded',
        });
      }
    },
    /** Counts a finished call's tokens against its key's budget (keys without one count nothing here; usage has every call). */
    spend(key: ApiKey, tokens: number): void {
      if (key.tokenBudget === null || tokens <= 0) return;
      counters.spendTokens(key.id, monthStart(clock.now()), tokens).catch((err: unknown) => deps.onError?.(err));
    },
    /** Forgets requests older than the window (a background job). */
    prune: () => counters.pruneRequests(clock.now() - RATE_WINDOW_MS),
  };
}

export type KeyLimits = ReturnType<typeof keyLimits>;
