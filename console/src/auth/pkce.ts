/** RFC 7636 S256 and the random values of a sign-in, with Web Crypto. */
export function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
}

export const random = (size: number): string => base64url(crypto.getRandomValues(new Uint8Array(size)));

export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** A JWT's claims, unverified: the tokens come straight from the token endpoint over this page's own connection. */
export function claimsOf(jwt: string | undefined): Record<string, unknown> {
  try {
    const part = (jwt ?? '').split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
    const binary = atob(part + '='.repeat((4 - (part.length % 4)) % 4));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
  } catch {
    return {};
  }
}
