import { compactVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { KeyRing } from '../keys';
import type { RealmRecord } from '../ports';
import { createAuthorization } from './authorization';
import type { BrowserDeps } from './deps';
import { createLogout } from './logout';

export type { BrowserAnswer, BrowserRequest, CookieSet } from './answers';
export { cookiePath, CSRF_COOKIE, ssoCookieName } from './answers';
export type { BrowserDeps } from './deps';

/** An authorization code may be exchanged for this long (RFC 6749 §4.1.2 recommends at most ten minutes). */
export const CODE_TTL_MS = 60_000;
/** How long single sign-on lasts after the password was typed, by default (Keycloak's SSO Session Max). */
export const SSO_SESSION_SECONDS = 10 * 60 * 60;

/** Sign-in for people: the authorization endpoint, its login form, single sign-on and logout. */
export function createBrowserSignIn(deps: BrowserDeps) {
  return { ...createAuthorization(deps), ...createLogout(deps) };
}

export type BrowserSignIn = ReturnType<typeof createBrowserSignIn>;

/**
 * The claims of an ID token the realm signed (RS256, one of its keys, its issuer), whether or not
 * it expired: an `id_token_hint` may be old (RP-Initiated Logout §2). Undefined for anything else.
 */
export async function idTokenClaims(keys: KeyRing, realm: RealmRecord, issuer: string, token: string): Promise<JWTPayload | undefined> {
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'RS256' || typeof header.kid !== 'string') return undefined;
    const key = await keys.verificationKey(realm.id, header.kid);
    if (!key) return undefined;
    const { payload } = await compactVerify(token, key, { algorithms: ['RS256'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
    return claims.iss === issuer && claims.typ === 'ID' ? claims : undefined;
  } catch {
    return undefined;
  }
}
