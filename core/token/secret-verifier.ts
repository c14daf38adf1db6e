import { createHmac, randomBytes } from 'node:crypto';
import type { Attempt } from './attempt';
import type { KeyedHasher } from './keyed-hash';
import type { Account } from './lockout';
import { randomSecret, type SecretHasher } from './secrets';

export interface SecretVerifier {
  /**
   * True when `secret` matches `stored` (a keyed hash, checked at once, or an scrypt hash, checked
   * at the attempt's turn of the hashing pool, in `account`'s failure counts). With `stored`
   * undefined (unknown account) it still spends the work of the kind of account named by `unknown`
   * and answers false, so timing does not reveal which accounts exist.
   */
  verify(
    attempt: Attempt,
    account: Account,
    secret: string,
    stored: string | undefined | null,
    unknown: 'keyed' | 'slow',
  ): Promise<boolean>;
}

/**
 * A verified scrypt secret is remembered in memory for a few minutes as an HMAC under a key that
 * lives only in this process, so a user or a not-yet-upgraded client asking in a loop does not pay
 * scrypt each time (and is answered without waiting for the pool); concurrent checks of the same
 * secret share one scrypt computation (single flight). The stored hash is part of the key: a
 * changed secret never matches an old entry.
 */
export function createSecretVerifier(opts: {
  hasher: SecretHasher;
  keyed: KeyedHasher;
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}): SecretVerifier {
  const { hasher, keyed } = opts;
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const processKey = randomBytes(32);
  const remembered = new Map<string, number>();
  /** Checks of one secret against one hash, waiting or running: they share the first one's computation. */
  const flights = new Map<string, { pending?: Promise<boolean>; waiting: number }>();
  const dummyKeyed = keyed.hash(randomSecret());
  let dummySlow: Promise<string> | undefined;

  const cacheKey = (secret: string, stored: string) =>
    createHmac('sha256', processKey).update(stored).update('\0').update(secret).digest('base64');
  const isRemembered = (key: string) => (remembered.get(key) ?? 0) > now();

  async function check(key: string, secret: string, stored: string): Promise<boolean> {
    if (!(await hasher.matches(secret, stored))) return false;
    if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, now() + ttlMs);
    return true;
  }

  /**
   * The first check of a secret queues for the pool; one arriving while it runs joins it; one
   * that queued meanwhile (its place reserved before the first started) takes the first one's
   * answer at its turn. The shared answer is forgotten once no check of it is waiting. A secret
   * remembered passes without the pool, unless its account is locked for the caller's source.
   */
  function slow(attempt: Attempt, account: Account, secret: string, stored: string): Promise<boolean> {
    const key = cacheKey(secret, stored);
    if (isRemembered(key)) return attempt.remembered(account);
    let flight = flights.get(key);
    if (flight?.pending) return attempt.join(account, flight.pending);
    if (!flight) flights.set(key, (flight = { waiting: 0 }));
    const f = flight;
    f.waiting++;
    return attempt
      .queued(account, () => {
        if (isRemembered(key)) return Promise.resolve(true);
        return (f.pending ??= check(key, secret, stored));
      })
      .finally(() => {
        if (--f.waiting === 0 && flights.get(key) === f) flights.delete(key);
      });
  }

  return {
    async verify(attempt, account, secret, stored, unknown) {
      if (stored && keyed.recognizes(stored)) return attempt.now(() => keyed.matches(secret, stored));
      if (stored) return slow(attempt, account, secret, stored);
      if (unknown === 'keyed') return attempt.now(() => keyed.matches(secret, dummyKeyed) && false);
      return attempt.queued(account, async () => {
        await hasher.matches(secret, await (dummySlow ??= hasher.hash(randomSecret())));
        return false;
      });
    },
  };
}
