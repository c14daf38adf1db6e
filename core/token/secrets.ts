import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords (and client secrets a person chose) at rest: scrypt with OWASP's minimum (N=2^17, r=8,
 * p=1), a random salt per secret, the parameters stored with the hash so they can be raised later
 * (a hash made with weaker ones is redone at the next successful login). Comparisons are
 * constant-time. Secrets the platform generates get a keyed fast hash instead (keyed-hash.ts).
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

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
