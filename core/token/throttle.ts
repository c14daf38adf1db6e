import { RateLimited } from '../shared/errors';
import type { FailureCounter, FailureWindow } from './ports';

/**
 * Failed authentications per caller address in a fixed window. Rules:
 * - past the limit the caller gets 429 before any hashing, so wrong secrets cannot be used to burn
 *   the server's CPU, and password guessing across many accounts from one address is slowed down
 *   (lockout covers one account from many addresses);
 * - an attempt takes its place in the count (a reservation, one atomic statement) before its
 *   secret is hashed, and gives it back only if it succeeds: parallel attempts never get more
 *   hashes than the limit, however many arrive at once;
 * - the counts live in the store (or in Redis), so every worker process and replica sees them.
 */
export interface FailureThrottle {
  /** Throws RateLimited when `key` used up its failures in the current window. */
  check(key: string): Promise<void>;
  /** Reserves a place for an attempt in flight, or throws RateLimited when none is left. */
  reserve(key: string): Promise<Reservation>;
  /** Counts a failure that held no reservation (its check hashed nothing of its own); true when it took the window's last place. */
  fail(key: string): Promise<boolean>;
}

export interface Reservation {
  /** It took the window's last place: kept as a failure, the address is throttled until the window ends. */
  readonly filled: boolean;
  /** The attempt succeeded (or failed for another reason than its credentials): not a failure. */
  release(): Promise<void>;
}

export function createFailureThrottle(opts: { counter: FailureCounter; limit: number; windowMs: number; now: () => number }): FailureThrottle {
  const { counter, limit, windowMs } = opts;
  const refuse = (w: FailureWindow, now: number) =>
    new RateLimited('Too many failed authentications; try again later', Math.max(1, Math.ceil((w.resetAt - now) / 1000)), { code: 'slow_down' });
  return {
    async check(key) {
      const now = opts.now();
      const w = await counter.count(key, now);
      if (w.count >= limit) throw refuse(w, now);
    },
    async reserve(key) {
      const now = opts.now();
      const w = await counter.reserve(key, limit, windowMs, now);
      if (!w.reserved) throw refuse(w, now);
      let open = true;
      return {
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
  };
}

const nothing = async () => undefined;
/** Never throttles (embedded uses that do their own limiting). */
export const noThrottle: FailureThrottle = { check: nothing, reserve: async () => ({ filled: false, release: nothing }), fail: async () => false };
