import { RateLimited } from '../errors';

/**
 * Failed authentications per caller address in a fixed window. Past the limit the caller gets 429
 * before any scrypt work is done, so wrong secrets cannot be used to burn the server's CPU, and
 * password guessing across many accounts from one address is slowed down (lockout covers one
 * account from many addresses).
 */
export interface FailureThrottle {
  /** Throws RateLimited when `key` used up its failures in the current window. */
  check(key: string): void;
  fail(key: string): void;
}

export function createFailureThrottle(opts: { limit: number; windowMs: number; now: () => number; maxKeys?: number }): FailureThrottle {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const maxKeys = opts.maxKeys ?? 100_000;

  const current = (key: string) => {
    const w = windows.get(key);
    return w && w.resetAt > opts.now() ? w : undefined;
  };

  return {
    check(key) {
      const w = current(key);
      if (w && w.count >= opts.limit) {
        const retryAfter = Math.max(1, Math.ceil((w.resetAt - opts.now()) / 1000));
        throw new RateLimited('Too many failed authentications; try again later', retryAfter, { code: 'slow_down' });
      }
    },
    fail(key) {
      const w = current(key);
      if (w) return void w.count++;
      if (windows.size >= maxKeys) {
        for (const [k, v] of windows) if (v.resetAt <= opts.now()) windows.delete(k);
        if (windows.size >= maxKeys) windows.delete(windows.keys().next().value as string);
      }
      windows.set(key, { count: 1, resetAt: opts.now() + opts.windowMs });
    },
  };
}

/** Never throttles (tests and embedded uses that do their own limiting). */
export const noThrottle: FailureThrottle = { check: () => undefined, fail: () => undefined };
