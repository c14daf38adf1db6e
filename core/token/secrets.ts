import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Secrets and passwords at rest: scrypt with OWASP's minimum (N=2^17, r=8, p=1), a random salt per
 * secret, the parameters stored with the hash so they can be raised later (a hash made with weaker
 * ones is redone at the next successful login). Comparisons are constant-time.
 */
export interface ScryptParams { N: number; r: number; p: number }

export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LEN = 32;

/** Port: how secrets are hashed. Tests pass cheap parameters; production uses OWASP_SCRYPT. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  matches(secret: string, stored: string): Promise<boolean>;
  /** True when `stored` was made with weaker parameters than this hasher uses. */
  outdated(stored: string): boolean;
}

const derive = (secret: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    // maxmem: scrypt needs 128·N·r bytes; Node's default (32 MiB) is below OWASP's parameters.
    scrypt(secret, salt, KEY_LEN, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key))),
  );

const parse = (stored: string) => {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return undefined;
  return { params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
};

export function scryptHasher(params: ScryptParams = OWASP_SCRYPT): SecretHasher {
  return {
    async hash(secret) {
      const salt = randomBytes(16);
      const key = await derive(secret, salt, params);
      return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
    async matches(secret, stored) {
      const s = parse(stored);
      if (!s) return false;
      const actual = await derive(secret, s.salt, s.params);
      return actual.length === s.hash.length && timingSafeEqual(actual, s.hash);
    },
    outdated(stored) {
      const s = parse(stored);
      return !s || s.params.N < params.N || s.params.r < params.r || s.params.p < params.p;
    },
  };
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

/**
 * A verified secret is remembered in memory for a few minutes as an HMAC under a key that lives
 * only in this process, so a machine client asking for tokens in a loop does not pay scrypt each
 * time; concurrent checks of the same secret share one scrypt computation (single flight), so a
 * burst right after start pays it once. The stored hash is part of the key: a changed secret
 * never matches an old entry.
 */
export function createSecretVerifier(opts: { hasher: SecretHasher; ttlMs?: number; maxEntries?: number; now?: () => number }): SecretVerifier {
  const { hasher } = opts;
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const processKey = randomBytes(32);
  const remembered = new Map<string, number>();
  const inFlight = new Map<string, Promise<boolean>>();
  let dummyHash: Promise<string> | undefined;

  const cacheKey = (secret: string, stored: string) =>
    createHmac('sha256', processKey).update(stored).update('\0').update(secret).digest('base64');

  async function check(key: string, secret: string, stored: string): Promise<boolean> {
    try {
      if (!(await hasher.matches(secret, stored))) return false;
      if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value as string);
      remembered.set(key, now() + ttlMs);
      return true;
    } finally {
      inFlight.delete(key);
    }
  }

  return {
    async verify(secret, stored) {
      if (!stored) {
        dummyHash ??= hasher.hash(randomSecret());
        await hasher.matches(secret, await dummyHash);
        return false;
      }
      const key = cacheKey(secret, stored);
      const until = remembered.get(key);
      if (until !== undefined && until > now()) return true;
      let pending = inFlight.get(key);
      if (!pending) inFlight.set(key, (pending = check(key, secret, stored)));
      return pending;
    },
  };
}
