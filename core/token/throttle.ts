import { RateLimited } from '../errors';
import type { TokenStore } from './ports';

/**
 * Failed authentications per caller address in a fixed window. Past the limit the caller gets 429
 * before any scrypt work is done, so wrong secrets cannot be used to burn the server's CPU, and
 * password guessing across many accounts from one address is slowed down (lockout covers one
 * account from many addresses). The counts live in the store, so every worker process sees them.
 */
export interface FailureThrottle {
  /** Throws RateLimited when `key` used up its failures in the current window. */
  check(key: string): void;
  fail(key: string): void;
}

export function createFailureThrottle(opts: { counter: TokenStore['failures']; limit: number; windowMs: number; now: () => number }): FailureThrottle {
  const { counter } = opts;
  return {
    check(key) {
      const now = opts.now();
      const w = counter.count(key, now);
      if (w.count >= opts.limit) {
        const retryAfter = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
        throw new RateLimited('Too many failed authentications; try again later', retryAfter, { code: 'slow_down' });
      }
    },
    fail(key) {
      counter.add(key, opts.windowMs, opts.now());
    },
  };
}

/** Never throttles (embedded uses that do their own limiting). */
export const noThrottle: FailureThrottle = { check: () => undefined, fail: () => undefined };
