import { RateLimited } from '../shared/errors';
import type { FailureCounter, FailureWindow } from './ports';

/**
 * Failed authentications per key (a caller's source, an account, an account from one source, a
 * realm) in fixed windows. Rules:
 * - past the limit the key is refused before any hashing, so wrong secrets cannot be used to burn
 *   the server's CPU;
 * - an attempt takes its place in the count (a reservation, one atomic statement) before its
 *   secret is hashed, and gives it back only if it succeeds: parallel attempts never get more
 *   hashes than the limit, however many arrive at once;
 * - the counts live in the store (or in Redis), so every worker process and replica sees them.
 */
export interface FailureThrottle {
  /** The failures counted for `key` in its current window; throws RateLimited when it used them all up. */
  check(key: string): Promise<number>;
  /** Reserves a place for an attempt in flight, or throws RateLimited when none is left. */
  reserve(key: string): Promise<Reservation>;
  /** Counts a failure that held no reservation (its check hashed nothing of its own); true when it took the window's last place. */
  fail(key: string): Promise<boolean>;
  /** Forgets `key`'s failures (a success that wipes the slate). */
  forget(key: string): Promise<void>;
}

export interface Reservation {
  /** The places taken in the window, this one included: 1 when nothing else failed or is in flight there. */
  readonly count: number;
  /** It took the window's last place: kept as a failure, the key is refused until the window ends. */
  readonly filled: boolean;
  /** The attempt succeeded (or failed for another reason than its credentials): not a failure. */
  release(): Promise<void>;
}

export function createFailureThrottle(opts: {
  counter: FailureCounter;
  limit: number;
  windowMs: number;
  now: () => number;
  message?: string;
}): FailureThrottle {
  const { counter, limit, windowMs } = opts;
  const message = opts.message ?? 'Too many failed authentications; try again later';
  const refuse = (w: FailureWindow, now: number) =>
    new RateLimited(message, Math.max(1, Math.ceil((w.resetAt - now) / 1000)), { code: 'slow_down' });
  return {
    async check(key) {
      const now = opts.now();
      const w = await counter.count(key, now);
      if (w.count >= limit) throw refuse(w, now);
      return w.count;
    },
    async reserve(key) {
      const now = opts.now();
      const w = await counter.reserve(key, limit, windowMs, now);
      if (!w.reserved) throw refuse(w, now);
      let open = true;
      return {
        count: w.count,
        filled: w.count >= limit,
        async release() {
          if (!open) return;
          open = false;
          await counter.release(key, w.resetAt);
        },
      };
    },
    // Exactly the failure that brings the count to the limit fills the window: one per window, however many land at once.
    fail: async (key) => (await counter.add(key, windowMs, opts.now())) === limit,
    forget: (key) => counter.forget(key),
  };
}

const nothing = async () => undefined;
/** Never throttles (embedded uses that do their own limiting). */
export const noThrottle: FailureThrottle = {
  check: async () => 0,
  reserve: async () => ({ count: 0, filled: false, release: nothing }),
  fail: async () => false,
  forget: nothing,
};
