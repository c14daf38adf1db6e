import type { Clock } from '../clock';
import { RateLimited } from '../errors';
import type { ApiKey } from './keys';

/**
 * A key's limits (`platform key create --rpm N --token-budget N`):
 * - requests per minute: a token bucket per key (burst = the limit, refilled evenly over the minute);
 * - token budget: tokens in and out per calendar month (UTC), from the usage records.
 * Both answer 429 with `Retry-After`. The bucket is per process, so with W workers a key gets up to
 * W times its rate; the budget is read from models.db (shared) and refreshed every few seconds, so
 * workers overshoot it by at most the calls of that window.
 */
export interface LimitsDeps {
  clock: Clock;
  /** Tokens the key has used since `since` (epoch ms), from the usage records. */
  tokensUsed(keyId: string, since: number): number;
  refreshMs?: number;
}

export const monthStart = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

export function keyLimits(deps: LimitsDeps) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const spent = new Map<string, { tokens: number; month: number; readAt: number }>();
  const refreshMs = deps.refreshMs ?? 5000;

  const used = (keyId: string, now: number) => {
    const month = monthStart(now);
    let s = spent.get(keyId);
    if (!s || s.month !== month || now - s.readAt > refreshMs) {
      s = { tokens: deps.tokensUsed(keyId, month), month, readAt: now };
      spent.set(keyId, s);
    }
    return s;
  };

  return {
    /** Takes one request from the key's bucket and checks its budget; throws RateLimited (429). */
    admit(key: ApiKey): void {
      const now = deps.clock.now();
      if (key.tokenBudget !== null && used(key.id, now).tokens >= key.tokenBudget) {
        throw new RateLimited(`This key has used its budget of ${key.tokenBudget} tokens for the month.`,
          Math.ceil((nextMonth(now) - now) / 1000), { code: 'insufficient_quota' });
      }
      const rpm = key.requestsPerMinute;
      if (rpm === null) return;
      const perMs = rpm / 60_000;
      const b = buckets.get(key.id) ?? { tokens: rpm, at: now };
      b.tokens = Math.min(rpm, b.tokens + (now - b.at) * perMs);
      b.at = now;
      if (b.tokens < 1) {
        buckets.set(key.id, b);
        throw new RateLimited(`This key is limited to ${rpm} requests per minute.`, Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)), { code: 'rate_limit_exceeded' });
      }
      b.tokens -= 1;
      buckets.set(key.id, b);
    },
    /** Counts a finished call's tokens against its key's budget at once (the records land a moment later). */
    spend(keyId: string, tokens: number): void {
      const s = spent.get(keyId);
      if (s) s.tokens += tokens;
    },
  };
}

export type KeyLimits = ReturnType<typeof keyLimits>;
