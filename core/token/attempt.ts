import { AuthenticationFailed } from './errors';
import type { FairPool } from '../shared/fair-pool';
import type { FailureThrottle, Reservation } from './throttle';

/**
 * How one authenticating step checks a credential. Each check first takes a place in the caller
 * address's failure count (one atomic reservation), so a check in flight, waiting for the hashing
 * pool included, counts against the limit; the place is given back when the credential matches
 * and kept (that is the failure) when it does not.
 */
export interface Attempt {
  /** A cheap check (a keyed hash), run at once. */
  now(check: () => boolean): boolean;
  /** A slow check (scrypt), run at the caller address's fair turn of the hashing pool. */
  queued(check: () => Promise<boolean>): Promise<boolean>;
  /** Waits for an identical check already running (same secret, same account). */
  join(pending: Promise<boolean>): Promise<boolean>;
}

/** Runs every check at once, unthrottled (tools and tests that need no limiting). */
export const freeAttempt: Attempt = { now: (check) => check(), queued: (check) => check(), join: (pending) => pending };

/**
 * Rules: a caller over its limit gets 429 before anything is looked at; a step refused for its
 * credentials after checks that all matched (a disabled account) is counted as a failure then.
 */
export function createAttempts(deps: { throttle: FailureThrottle; pool: FairPool }) {
  const { throttle, pool } = deps;
  return {
    async throttled<T>(address: string, step: (attempt: Attempt) => Promise<T>): Promise<T> {
      throttle.check(address);
      let failed = false;
      const settle = (place: Reservation, ok: boolean) => {
        if (ok) place.release();
        else failed = true;
        return ok;
      };
      const held = (run: () => Promise<boolean>) => {
        const place = throttle.reserve(address);
        return run().then((ok) => settle(place, ok), (err: unknown) => {
          place.release();
          throw err;
        });
      };
      const attempt: Attempt = {
        now(check) {
          const place = throttle.reserve(address);
          try {
            return settle(place, check());
          } catch (err) {
            place.release();
            throw err;
          }
        },
        queued: (check) => held(() => pool.run(address, check)),
        join: (pending) => held(() => pending),
      };
      try {
        return await step(attempt);
      } catch (err) {
        if (err instanceof AuthenticationFailed && !failed) throttle.fail(address);
        throw err;
      }
    },
  };
}
