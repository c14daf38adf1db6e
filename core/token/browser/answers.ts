/**
 * What the browser endpoints (authorize, the login form, logout) answer: pages and redirects, with
 * the cookies to set. The REST face renders them (rest/token/browser/); the core never writes HTML.
 */
export interface CookieSet {
  name: string;
  value: string;
  /** Seconds it lives; 0 clears it. */
  maxAgeSec: number;
}

interface Page {
  realmName: string;
  cookies: CookieSet[];
}

export type BrowserAnswer =
  | { kind: 'redirect'; location: string; cookies: CookieSet[] }
  /** The login form; `request` is the signed sign-in request the form posts back. */
  | (Page & { kind: 'login'; status: 200 | 401 | 429; action: string; request: string; username: string; error?: string })
  /** "Sign out?" with a button that posts `confirm` back to `action`. */
  | (Page & { kind: 'logout-confirm'; action: string; confirm: string })
  | (Page & { kind: 'signed-out' })
  /** A request that cannot go back to the app (an unknown client, an unregistered redirect URI, an expired page). */
  | { kind: 'error'; status: 400 | 403 | 404; title: string; message: string; cookies: CookieSet[] }
  /** Logout by a client's back channel (a refresh token): 204. */
  | { kind: 'done'; cookies: CookieSet[] };

/** The browser's request as the core reads it: parameters (query or form), its cookies, the Origin header of a POST. */
export interface BrowserRequest {
  realm: string;
  params: Record<string, unknown>;
  cookies: Record<string, string>;
  origin?: string;
}

/** The SSO cookie of a realm (its path covers the realm's id and name alike). */
export const ssoCookieName = (realmId: string): string => `platform_sso_${realmId}`;
/** The login form's anti-forgery cookie (login CSRF): bound into every signed page the browser posts back. */
export const CSRF_COOKIE = 'platform_csrf';
/** Where the cookies are sent: every realm's paths under the token service. */
export const COOKIE_PATH = '/auth/api/v1/realms/';
