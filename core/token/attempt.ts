import { AuthenticationFailed } from './errors';
import type { FairPool } from './fair-pool';
import type { FailureThrottle, Reservation } from './throttle';

/**
 * How one authenticating step checks a credential. Each check takes a place in the caller
 * address's failure count (one atomic reservation) right before it runs, so a check in flight
 * counts against the limit; the place is given back when the credential matches and kept (that is
 * the failure) when it does not. `now` is for cheap checks, run at once; `queued` for slow hashes,
 * run at the address's fair turn of the hashing pool, the place reserved only when the turn comes.
 */
export interface Attempt {
  now(check: () => boolean): boolean;
  queued(check: () => Promise<boolean>): Promise<boolean>;
}

/** Runs every check at once, unthrottled (tools and tests that need no limiting). */
export const freeAttempt: Attempt = { now: (check) => check(), queued: (check) => check() };

/**
 * Rules: a caller over its limit gets 429 before anything is looked at; a step refused for its
 * credentials without a failed check of its own (a disabled account, a check that joined another
 * caller's identical hash) is counted as a failure afterwards, once.
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
      const release = (place: Reservation, err: unknown): never => {
        place.release();
        throw err;
      };
      const attempt: Attempt = {
        now(check) {
          const place = throttle.reserve(address);
          try {
            return settle(place, check());
          } catch (err) {
            return release(place, err);
          }
        },
        queued: (check) => pool.run(address, () => {
          const place = throttle.reserve(address);
          return check().then((ok) => settle(place, ok), (err: unknown) => release(place, err));
        }),
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
