import { AuthenticationFailed } from './errors';
import type { FairPool } from '../shared/fair-pool';
import type { FailureThrottle, Reservation } from './throttle';

/**
 * How one authenticating step checks a credential. A slow check first takes a place in the caller
 * address's failure count (one atomic reservation), so a check in flight, waiting for the hashing
 * pool included, counts against the limit; the place is given back when the credential matches
 * and kept (that is the failure) when it does not. A cheap check runs at once and takes its place
 * only when it fails (one atomic step too, refused past the limit): matching credentials in
 * parallel, however many, never touch the count.
 */
export interface Attempt {
  /** A cheap check (a keyed hash), run at once; its failure takes a place. */
  now(check: () => boolean): Promise<boolean>;
  /** A slow check (scrypt), run at the caller address's fair turn of the hashing pool. */
  queued(check: () => Promise<boolean>): Promise<boolean>;
  /** Waits for an identical check already running (same secret, same account). */
  join(pending: Promise<boolean>): Promise<boolean>;
}

/** Runs every check at once, unthrottled (tools and tests that need no limiting). */
export const freeAttempt: Attempt = { now: async (check) => check(), queued: (check) => check(), join: (pending) => pending };

/**
 * Rules: a caller over its limit gets 429 before anything is looked at; a step refused for its
 * credentials after checks that all matched (a disabled account) is counted as a failure then.
 * `throttled` is told once per window, by the failure that took its last place (a failed check's,
 * or a refused step's counted after it); from then on the address is refused until the window ends.
 */
export function createAttempts(deps: { throttle: FailureThrottle; pool: FairPool; throttled?: () => void }) {
  const { throttle, pool } = deps;
  const filled = (place: Reservation) => {
    if (place.filled) deps.throttled?.();
  };
  return {
    async throttled<T>(address: string, step: (attempt: Attempt) => Promise<T>): Promise<T> {
      await throttle.check(address);
      let failed = false;
      const held = async (run: () => Promise<boolean>) => {
        const place = await throttle.reserve(address);
        let ok: boolean;
        try {
          ok = await run();
        } catch (err) {
          await place.release();
          throw err;
        }
        if (ok) {
          await place.release();
        } else {
          failed = true;
          filled(place);
        }
        return ok;
      };
      const attempt: Attempt = {
        async now(check) {
          if (check()) return true;
          filled(await throttle.reserve(address));
          failed = true;
          return false;
        },
        queued: (check) => held(() => pool.run(address, check)),
        join: (pending) => held(() => pending),
      };
      try {
        return await step(attempt);
      } catch (err) {
        if (err instanceof AuthenticationFailed && !failed && await throttle.fail(address)) deps.throttled?.();
        throw err;
      }
    },
  };
}
