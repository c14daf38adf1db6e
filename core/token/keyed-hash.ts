import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Generated client secrets at rest: HMAC-SHA-256 under a server-side key kept in the token store.
 * A generated secret has 256 random bits, so no guess can be tried against its hash faster than
 * against the server (a slow hash would add nothing but the work an attacker can make the server
 * do); the key means a copy of the hashes alone does not even allow that. Passwords, which people
 * choose, keep scrypt (secrets.ts). Comparisons are constant-time. Stored as `hmac-sha256$<base64>`.
 */
export interface KeyedHasher {
  hash(secret: string): string;
  matches(secret: string, stored: string): boolean;
  /** True when `stored` was made by this scheme. */
  recognizes(stored: string): boolean;
}

const PREFIX = 'hmac-sha256$';

export function keyedHasher(key: Buffer): KeyedHasher {
  if (key.length < 32) throw new Error('the keyed hash needs a key of at least 32 bytes');
  const digest = (secret: string) => createHmac('sha256', key).update(secret, 'utf8').digest();
  const recognizes = (stored: string) => stored.startsWith(PREFIX);
  return {
    hash: (secret) => PREFIX + digest(secret).toString('base64'),
    recognizes,
    matches(secret, stored) {
      if (!recognizes(stored)) return false;
      const expected = Buffer.from(stored.slice(PREFIX.length), 'base64');
      const actual = digest(secret);
      return expected.length === actual.length && timingSafeEqual(actual, expected);
    },
  };
}

/**
 * The shape of a secret the platform generates (`randomSecret()`: 32 random bytes, base64url).
 * Only secrets of this shape get the keyed hash; any other (one a person chose) keeps scrypt.
 */
export const isGeneratedSecret = (secret: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(secret);
