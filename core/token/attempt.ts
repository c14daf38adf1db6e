import { AuthenticationFailed } from './errors';
import type { FairPool } from '../shared/fair-pool';
import { admission, type Guards, type Place } from './admission';
import type { Account } from './lockout';
import type { LockScope } from './security-events';
import type { Reservation } from './throttle';

export type { Guards } from './admission';

/**
 * How one authenticating step checks a credential. A slow check first takes its places in the
 * failure counts (admission.ts: its source's, its account's from that source, its account's, its
 * realm's; one atomic reservation each), so a check in flight, waiting for the hashing pool
 * included, counts against every limit; the places are given back when the credential matches
 * and kept (that is the failure) when it does not. A cheap check runs at once and takes its place
 * in its source's count only when it fails (one atomic step too, refused past the limit):
 * matching credentials in parallel, however many, never touch the counts.
 */
export interface Attempt {
  /** The caller's address, for security events (absent for in-process callers and tools). */
  address?: string;
  /** A cheap check (a keyed hash), run at once; its failure takes a place. */
  now(check: () => boolean): Promise<boolean>;
  /** A slow check (scrypt) of `account`'s secret, run at its turn of the hashing pool; false at once when the account is locked for this source. */
  queued(account: Account, check: () => Promise<boolean>): Promise<boolean>;
  /** Waits for an identical check already running (same secret, same account). */
  join(account: Account, pending: Promise<boolean>): Promise<boolean>;
  /** A slow check answered from memory (this secret matched a moment ago): true unless the account is locked for this source. */
  remembered(account: Account): Promise<boolean>;
}

/** Runs every check at once, unthrottled (tools and tests that need no limiting). */
export const freeAttempt: Attempt = {
  now: async (check) => check(),
  queued: (_a, check) => check(),
  join: (_a, pending) => pending,
  remembered: async () => true,
};

/** A failure count that filled: the source's own (no account), or an account's from the source or from everywhere. */
export interface Lock {
  source: string;
  account?: Account;
  scope: LockScope;
}

const SCOPES: readonly LockScope[] = ['address', 'account-address', 'account'];

/**
 * Rules: a source over its limit gets 429 before anything is looked at; a step refused for its
 * credentials after checks that all matched (a disabled account) is counted as a failure then.
 * `locked` is told once per window of each count, by the failure that took its last place (a
 * failed check's, or a refused step's counted after it): from then on the source is refused (429),
 * the account refused to that source or to everyone (as a wrong credential), until the window ends.
 */
export function createAttempts(deps: { guards: Guards; pool: FairPool; locked?: (lock: Lock) => void }) {
  const { guards, pool } = deps;
  /** `places` in admission's order (the source's, the account's from it, the account's): which of them a failure filled. */
  const told = (source: string, places: readonly Reservation[], account?: Account) => {
    places.forEach((p, i) => {
      if (p.filled) deps.locked?.({ source, account, scope: SCOPES[i] ?? 'account' });
    });
  };
  return {
    async throttled<T>(source: string, step: (attempt: Attempt) => Promise<T>): Promise<T> {
      await guards.source.check(source);
      const admit = admission(guards, source);
      let failed = false;
      /** Runs a slow check in its places: given back when it matches, kept when it does not. */
      const held = async (account: Account, run: (priority: number) => Promise<boolean>) => {
        const place: Place = await admit.enter(account);
        if (place.refused) {
          failed = true;
          told(source, place.places, account);
          return false;
        }
        let ok: boolean;
        try {
          ok = await run(place.priority);
        } catch (err) {
          await place.release();
          throw err;
        }
        if (ok) {
          await place.succeed();
        } else {
          failed = true;
          told(source, place.places, account);
        }
        return ok;
      };
      const attempt: Attempt = {
        async now(check) {
          if (check()) return true;
          told(source, [await guards.source.reserve(source)]);
          failed = true;
          return false;
        },
        queued: (account, check) => held(account, (priority) => pool.run(source, check, priority)),
        join: (account, pending) => held(account, () => pending),
        async remembered(account) {
          if (await admit.open(account)) return true;
          failed = true;
          return false;
        },
      };
      try {
        return await step(attempt);
      } catch (err) {
        if (err instanceof AuthenticationFailed && !failed && (await guards.source.fail(source)))
          deps.locked?.({ source, scope: 'address' });
        throw err;
      }
    },
  };
}
