import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 unreserved characters (a verifier; an S256 challenge is 43 of them). */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 §4.2: the S256 challenge of a verifier. */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Whether `verifier` is well formed and its S256 challenge is `challenge`, compared in constant time. */
export function verifierMatches(challenge: string, verifier: string | undefined): boolean {
  if (!verifier || !PKCE_VALUE.test(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
