import { BadRequest } from '../../shared/errors';
import type { ClientRecord } from '../ports';

/** What a client registers for browsers: where codes and logouts may go, and which origins may call with its realm's tokens. */
export type BrowserSettings = Pick<ClientRecord, 'redirectUris' | 'postLogoutRedirectUris' | 'webOrigins'>;

/** The public client of the platform's own pages (GraphiQL, the console): paths on PUBLIC_URL, so a new PUBLIC_URL needs no change. */
export const CONSOLE_CLIENT = {
  clientId: 'platform-console',
  settings: { redirectUris: ['/graphiql', '/console/'], postLogoutRedirectUris: ['/graphiql', '/console/'], webOrigins: [] },
} as const satisfies { clientId: string; settings: BrowserSettings };

const MAX_URIS = 50;
const MAX_URI_LENGTH = 2000;

/**
 * A redirect URI as registered: an absolute URI without a fragment (RFC 6749 §3.1.2) and without
 * wildcards (matching is exact, RFC 9700 §4.1.3), or a path beginning with `/` on PUBLIC_URL.
 */
function checkUri(kind: string, uri: string): string {
  if (uri.length > MAX_URI_LENGTH) throw new BadRequest(`${kind} longer than ${MAX_URI_LENGTH} characters`);
  if (uri.includes('*')) throw new BadRequest(`${kind} '${uri.slice(0, 100)}': no wildcards, a URI is matched exactly`);
  if (uri.startsWith('/') && !uri.startsWith('//')) {
    if (/[#?\s]/.test(uri)) throw new BadRequest(`${kind} '${uri.slice(0, 100)}': a path on PUBLIC_URL, without query or fragment`);
    return uri;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new BadRequest(`${kind} '${uri.slice(0, 100)}' is not an absolute URI (or a path beginning with /)`);
  }
  if (url.hash || uri.includes('#')) throw new BadRequest(`${kind} '${uri.slice(0, 100)}' has a fragment`);
  if (['javascript:', 'data:', 'vbscript:', 'file:'].includes(url.protocol))
    throw new BadRequest(`${kind} '${uri.slice(0, 100)}': scheme not allowed`);
  return uri;
}

function checkOrigin(origin: string): string {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin)
    throw new BadRequest(`web origin '${origin.slice(0, 100)}' must be scheme://host[:port], as a browser sends it`);
  return origin;
}

const list = <T>(values: readonly string[] | undefined, kind: string, check: (v: string) => T): T[] | undefined => {
  if (values === undefined) return undefined;
  if (values.length > MAX_URIS) throw new BadRequest(`at most ${MAX_URIS} ${kind}s`);
  return [...new Set(values.map(check))];
};

/** The settings given, each checked (a BadRequest naming the first bad value). */
export function checkBrowserSettings(s: Partial<BrowserSettings>): Partial<BrowserSettings> {
  return {
    redirectUris: list(s.redirectUris, 'redirect URI', (u) => checkUri('redirect URI', u)),
    postLogoutRedirectUris: list(s.postLogoutRedirectUris, 'post-logout redirect URI', (u) => checkUri('post-logout redirect URI', u)),
    webOrigins: list(s.webOrigins, 'web origin', checkOrigin),
  };
}

/**
 * Whether `uri` is one the client registered, compared as strings after resolving registered
 * paths against PUBLIC_URL (never against the Host a request names: a proxy may pass one through):
 * no prefix, no normalisation, no decoding (an encoded or longer URI is another URI).
 */
export function registered(registeredUris: readonly string[], uri: string, publicUrl: string): boolean {
  return registeredUris.some((r) => (r.startsWith('/') ? publicUrl + r : r) === uri);
}
