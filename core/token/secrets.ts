import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Secrets and passwords at rest: scrypt, a random salt per secret, parameters stored with the hash
 * so they can be raised later. Comparisons are constant-time.
 *
 * A verified secret is remembered in memory for a few minutes as an HMAC under a key that lives
 * only in this process, so a machine client asking for tokens in a loop does not pay scrypt each
 * time. The stored hash is part of the cache key: changing a secret invalidates its entry.
 */
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const MAXMEM = 128 * N * R * 2;

const derive = (secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LEN, { N: n, r, p, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key))),
  );

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function matches(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A random, URL-safe secret with `bytes` bytes of entropy. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export interface SecretVerifier {
  /**
   * True when `secret` matches `stored`. With `stored` undefined (unknown account) it still spends
   * the same work and answers false, so timing does not reveal which accounts exist.
   */
  verify(secret: string, stored: string | undefined | null): Promise<boolean>;
}

export function createSecretVerifier(opts: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}): SecretVerifier {
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const processKey = randomBytes(32);
  const remembered = new Map<string, number>();
  let dummyHash: Promise<string> | undefined;

  const cacheKey = (secret: string, stored: string) =>
    createHmac('sha256', processKey).update(stored).update('\0').update(secret).digest('base64');

  return {
    async verify(secret, stored) {
      if (!stored) {
        dummyHash ??= hashSecret(randomSecret());
        await matches(secret, await dummyHash);
        return false;
      }
      const key = cacheKey(secret, stored);
      const until = remembered.get(key);
      if (until !== undefined && until > now()) return true;
      if (!(await matches(secret, stored))) return false;
      if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value as string);
      remembered.set(key, now() + ttlMs);
      return true;
    },
  };
}
