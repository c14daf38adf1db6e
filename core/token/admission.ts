import { RateLimited } from '../shared/errors';
import type { Account, LockoutPolicy } from './lockout';
import type { FailureCounter } from './ports';
import { createFailureThrottle, noThrottle, type FailureThrottle, type Reservation } from './throttle';

/** The failure counts a slow check takes its places in (each a window of atomic reservations). */
export interface Guards {
  /** Per source (AUTH_FAILURES_PER_MINUTE): past it, 429 for everything from the source. */
  source: FailureThrottle;
  /** Per account from one source (LOCKOUT_THRESHOLD): past it, that source is refused for the account. */
  pair: FailureThrottle;
  /** Per account, all sources (LOCKOUT_ACCOUNT_THRESHOLD): past it, everyone is refused for the account. */
  account: FailureThrottle;
  /** Per realm (AUTH_REALM_FAILURES_PER_MINUTE): past it, a source with failures gets 429 before any hashing. */
  realm: FailureThrottle;
}

export interface GuardOptions {
  /** Where lockouts are counted: the token store (the database), which never fails open. */
  lockouts: FailureCounter;
  /** Where the per-source and per-realm limits are counted: the store, or Redis. */
  throttles: FailureCounter;
  lockout: LockoutPolicy;
  sourceFailuresPerMinute?: number;
  realmFailuresPerMinute?: number;
  now: () => number;
}

export function createGuards(o: GuardOptions): Guards {
  const minute = (limit: number | undefined, message?: string) =>
    limit ? createFailureThrottle({ counter: o.throttles, limit, windowMs: 60_000, now: o.now, message }) : noThrottle;
  const lock = (limit: number) => createFailureThrottle({ counter: o.lockouts, limit, windowMs: o.lockout.seconds * 1000, now: o.now });
  return {
    source: minute(o.sourceFailuresPerMinute),
    pair: lock(o.lockout.threshold),
    account: lock(o.lockout.accountThreshold),
    realm: minute(o.realmFailuresPerMinute, 'Too many failed authentications in this realm; try again later'),
  };
}

/** Turns in the hashing pool (0 first): no failures counted; failures of the account (from elsewhere); failures or other checks of the source. */
export const PRIORITY = { clean: 0, accountFailing: 1, sourceFailing: 2 } as const;

/**
 * The hashing pool as the token service uses it: one hash at a time per source, and a source
 * with several hashes in the pool at once served as a source with failures.
 */
export const hashingPoolOptions = (concurrency: number) => ({ concurrency, perKey: 1, crowded: PRIORITY.sourceFailing });

/** Whether `account` reached its bound of failures: every source is refused for it until the window ends. */
export const lockedForAll = (guards: Guards, account: Account): Promise<boolean> =>
  guards.account.check(`a|${account.key}`).then(
    () => false,
    (err: unknown) => {
      if (err instanceof RateLimited) return true;
      throw err;
    },
  );

/** A slow check's places, or its refusal. */
export interface Place {
  /** Refused before any hashing: the account is locked for this source (`places` holds the source's place, kept as a failure). */
  refused: boolean;
  /**
   * Its turn in the hashing pool: 0 when neither its source nor its account has failures (or other
   * checks in flight) counted; 1 when only its account has (from other sources); 2 when its source has.
   */
  priority: number;
  /** Its places in the source's and the account's counts (a lockout when one of them fills its window). */
  places: readonly Reservation[];
  /** Not a failure (the check threw): every place given back. */
  release(): Promise<void>;
  /** The credential matched: every place given back, and the source's earlier failures on the account forgotten. */
  succeed(): Promise<void>;
}

/** Taken, or undefined when the count is full. */
const tryReserve = (t: FailureThrottle, key: string) =>
  t.reserve(key).catch((err: unknown) => {
    if (err instanceof RateLimited) return undefined;
    throw err;
  });

/**
 * Admission of the slow checks of one request from `source`. Rules, in order:
 * - the source's count (429 past it);
 * - the realm's count: full, a source that has failures of its own gets 429 with no hashing, while
 *   a clean source is still checked (an honest caller is never refused for others' failures); a
 *   source clean so far meets it last, once its count on the account is known;
 * - the account from this source, then the account from everywhere: either full, the check is
 *   refused at once as a wrong credential, with no hashing (the source's place kept as a failure);
 * - the pool turn's priority from what the counts said (clean first).
 * Keys: `p|<account>|<source>`, `a|<account>`, `r|<realm>`; the source's own is the bare source.
 */
export function admission(guards: Guards, source: string) {
  const pairKey = (a: Account) => `p|${a.key}|${source}`;
  return {
    async enter(account: Account): Promise<Place> {
      const places: Reservation[] = [];
      let realm: Reservation | undefined;
      const giveBack = async () => {
        await Promise.all([...places, ...(realm ? [realm] : [])].map((p) => p.release()));
      };
      /** The realm's place; when it has none left, 429 for a source with failures, none for a clean one. */
      const realmPlace = (dirty: boolean) =>
        guards.realm.reserve(`r|${account.realm}`).catch((err: unknown) => {
          if (err instanceof RateLimited && !dirty) return undefined;
          throw err;
        });
      const refused = async (): Promise<Place> => {
        await realm?.release();
        realm = undefined;
        return { refused: true, priority: PRIORITY.sourceFailing, places, release: giveBack, succeed: giveBack };
      };
      try {
        const own = await guards.source.reserve(source);
        places.push(own);
        // A source with failures meets the realm's budget first, so its 429s write nothing about accounts.
        if (own.count > 1) realm = await realmPlace(true);
        const pair = await tryReserve(guards.pair, pairKey(account));
        if (!pair) return await refused();
        const all = await tryReserve(guards.account, `a|${account.key}`);
        if (!all) {
          await pair.release();
          return await refused();
        }
        places.push(pair, all);
        const dirty = own.count > 1 || pair.count > 1;
        if (own.count <= 1) realm = await realmPlace(dirty);
        return {
          refused: false,
          priority: dirty ? PRIORITY.sourceFailing : all.count > 1 ? PRIORITY.accountFailing : PRIORITY.clean,
          places,
          release: giveBack,
          async succeed() {
            await giveBack();
            if (pair.count > 1) await guards.pair.forget(pairKey(account));
          },
        };
      } catch (err) {
        await giveBack();
        throw err;
      }
    },

    /** Whether a check answered from memory may pass: the account is locked neither for this source nor for everyone. */
    async open(account: Account): Promise<boolean> {
      const counted = (t: FailureThrottle, key: string) =>
        t.check(key).catch((err: unknown) => {
          if (err instanceof RateLimited) return undefined;
          throw err;
        });
      const pair = await counted(guards.pair, pairKey(account));
      if (pair === undefined || (await counted(guards.account, `a|${account.key}`)) === undefined) return false;
      if (pair > 0) await guards.pair.forget(pairKey(account));
      return true;
    },
  };
}
