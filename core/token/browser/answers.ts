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
  /**
   * The origin the request reached (`scheme://host`, as the browser addressed the platform): a form
   * may be posted from it (a browser sends its own Origin). Never used for redirects.
   */
  self?: string;
}

/** A redirect back to an app: `params` (those given) in its query or its fragment. */
export function redirectTo(
  uri: string,
  mode: 'query' | 'fragment',
  params: Record<string, string | undefined>,
  cookies: CookieSet[] = [],
): BrowserAnswer {
  const qs = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const location = !qs ? uri : mode === 'fragment' ? `${uri}#${qs}` : `${uri}${uri.includes('?') ? '&' : '?'}${qs}`;
  return { kind: 'redirect', location, cookies };
}

/** A page for a request that cannot go back to the app. */
export const errorPage = (status: 400 | 403 | 404, title: string, message: string, cookies: CookieSet[] = []): BrowserAnswer => ({
  kind: 'error',
  status,
  title,
  message,
  cookies,
});

/** The SSO cookie of a realm (its path covers the realm's id and name alike). */
export const ssoCookieName = (realmId: string): string => `platform_sso_${realmId}`;
/** The login form's anti-forgery cookie (login CSRF): bound into every signed page the browser posts back. */
export const CSRF_COOKIE = 'platform_csrf';
/** Where the cookies are sent: every realm's paths under the token service (after PUBLIC_URL's own path, if any). */
export const cookiePath = (publicUrl: string): string => `${new URL(publicUrl).pathname.replace(/\/+$/, '')}/auth/api/v1/realms/`;

/** A path on the platform (what pages post to), whatever host the browser reached it by. */
export const platformPath = (publicUrl: string, path: string): string => `${new URL(publicUrl).pathname.replace(/\/+$/, '')}${path}`;
