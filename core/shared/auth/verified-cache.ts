import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';

/** What a successful signature and claims check established, with the key that checked it. */
export interface Verified {
  key: unknown;
  realm: string;
  claims: JWTPayload & Record<string, unknown>;
  /** Epoch seconds of the check: a clock read earlier than it checks again. */
  at: number;
}

/**
 * Access tokens whose signature and claims were verified, so a token presented again (a client's
 * many sockets and requests with the same token) skips the RSA verification until it expires.
 * Keyed by a SHA-256 of the audience asked and the token (never the token itself, which no lookup
 * then compares); only what does not change over a token's lifetime is kept: the caller re-checks
 * expiry and revocation on every use, and a hit counts only when the key found for the token's
 * `kid` now is the one that verified it (a key rotated out verifies again). Failures are never
 * kept. At most `max` tokens, the oldest dropped first.
 */
export function verifiedTokens(max: number) {
  const kept = new Map<string, Verified>();
  const idOf = (token: string, audience: string | undefined) =>
    createHash('sha256')
      .update(audience ?? '')
      .update('\0')
      .update(token)
      .digest('base64url');
  return {
    idOf,
    get(id: string, key: unknown, now: number): Verified | undefined {
      const v = kept.get(id);
      if (!v) return undefined;
      if (v.key !== key || now < v.at) {
        kept.delete(id);
        return undefined;
      }
      return v;
    },
    set(id: string, v: Verified): void {
      if (max <= 0) return;
      if (kept.size >= max) kept.delete(kept.keys().next().value!);
      kept.set(id, v);
    },
    delete: (id: string) => void kept.delete(id),
    size: () => kept.size,
  };
}
