import type { Request, Response } from 'express';
import { cookiePath } from '../../core/token/browser';
import { RealmNotFound } from '../../core/token/errors';
import type { BrowserAnswer, BrowserRequest, TokenService } from '../../core/token/service';
import type { Ctx } from '../../core/shared/context';
import { define, type Route } from '../shared/routes';
import { tokenDocs } from './docs';
import { basicCredentials, failures, noStore, revokeRoute } from './oauth-http';
import { renderPage } from './pages';
import * as S from './schemas';

/** The Cookie header as names and values (the first of a name wins; values are not decoded). */
function cookiesOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!Object.hasOwn(out, name)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

/** The browser's request: the query and (for a POST) the form body; a parameter in both counts as given twice. */
function browserRequest(req: Request, realm: string): BrowserRequest {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const params: Record<string, unknown> = { ...query };
  for (const [k, v] of Object.entries(body)) params[k] = Object.hasOwn(params, k) ? [params[k], v] : v;
  const self = `${req.protocol}://${req.get('host') ?? ''}`;
  return { realm, params, cookies: cookiesOf(req), origin: req.method === 'POST' ? req.get('origin') : undefined, self };
}

/** Writes a browser answer: the cookies (HttpOnly, SameSite=Lax, Secure behind HTTPS), then the redirect or the page. */
function answer(res: Response, a: BrowserAnswer, secure: boolean, path: string): undefined {
  for (const c of a.cookies) {
    const opts = { httpOnly: true, sameSite: 'lax' as const, secure, path };
    if (c.maxAgeSec > 0) res.cookie(c.name, c.value, { ...opts, maxAge: c.maxAgeSec * 1000 });
    else res.clearCookie(c.name, opts);
  }
  res.set('Cache-Control', 'no-store');
  // Pages and redirects are for the browser's own navigation: no other site's script may read them (they hold signed forms).
  res.removeHeader('Access-Control-Allow-Origin');
  res.removeHeader('Access-Control-Allow-Credentials');
  if (a.kind === 'redirect') res.set('Referrer-Policy', 'same-origin').redirect(302, a.location);
  else if (a.kind === 'done') res.status(204).end();
  else renderPage(res, a);
  return undefined;
}

/**
 * Sign-in for people under a realm's issuer, at Keycloak's paths: the authorization endpoint and
 * its login form, RP-initiated logout, the realm's own token and revocation endpoints, and the web
 * origins clients registered (for CORS in processes apart). The pages are plain HTML without script.
 */
export function browserRoutes(token: TokenService, publicUrl: string): Route[] {
  const secureCookies = publicUrl.startsWith('https:');
  const path = cookiePath(publicUrl);
  const pageOf =
    (step: (r: BrowserRequest, ctx: Ctx, req: Request) => Promise<BrowserAnswer>) =>
    async (input: { realm: string }, { req, res, ctx }: { req: Request; res: Response; ctx: Ctx }) => {
      const secure = secureCookies || req.secure;
      try {
        return answer(res, await step(browserRequest(req, input.realm), ctx, req), secure, path);
      } catch (err) {
        if (!(err instanceof RealmNotFound)) throw err;
        return answer(
          res,
          { kind: 'error', status: 404, title: 'Realm not found', message: 'There is no such realm.', cookies: [] },
          secure,
          path,
        );
      }
    };
  const page = { 200: { description: 'An HTML page', contentType: 'text/html' } };
  const authorize = (method: 'get' | 'post') =>
    define({
      method,
      path: '/realms/:realm/protocol/openid-connect/auth',
      summary: 'Authorization endpoint (authorization code with PKCE S256; the login page)',
      tags: ['sign-in'],
      description:
        'OIDC Core §3.1.2: response_type=code, client_id, redirect_uri (exactly a registered one), scope, state, nonce, ' +
        'code_challenge + code_challenge_method=S256 (required from public clients), prompt (none, login), max_age, login_hint, ' +
        'response_mode (query, fragment). Answers 302 to redirect_uri (a code, or an error) or the login page; an unknown client ' +
        'or unregistered redirect_uri gets an error page, never a redirect.',
      input: { path: S.RealmRef },
      responses: { ...page, 302: { description: 'Back to the application with code, state and iss (or error)' }, 400: page[200] },
      handle: pageOf((r) => token.authorize(r)),
    });
  const logout = (method: 'get' | 'post') =>
    define({
      method,
      path: '/realms/:realm/protocol/openid-connect/logout',
      summary: 'RP-initiated logout (end_session_endpoint); with refresh_token, logout by a client',
      tags: ['sign-in'],
      description:
        'id_token_hint, post_logout_redirect_uri (registered for the client), state, client_id: ends the single sign-on session and ' +
        'every token of it, then 302 to post_logout_redirect_uri (with state) or a signed-out page. Without id_token_hint a signed-in ' +
        "browser is asked to confirm. POST with client_id (and a confidential client's secret) and refresh_token ends that session: 204.",
      input: { path: S.RealmRef },
      responses: { ...page, 204: { description: 'Logged out by refresh token' }, 302: { description: 'Back to the application' } },
      // A client logging out by refresh token may authenticate with HTTP Basic, as at the token endpoint.
      handle: pageOf((r, ctx, req) => token.logout({ ...r, params: { ...basicCredentials(req), ...r.params } }, ctx)),
    });
  return [
    authorize('get'),
    authorize('post'),
    define({
      method: 'post',
      path: '/realms/:realm/login-actions/authenticate',
      summary: 'The login form, posted back',
      tags: ['sign-in'],
      description: 'username, password and the signed request the page carries; answers 302 to the application, or the page again.',
      input: { path: S.RealmRef },
      responses: { 302: { description: 'Signed in: back to the application with a code' }, ...page, 401: page[200], 429: page[200] },
      handle: pageOf((r, ctx) => token.submitLogin(r, ctx)),
    }),
    logout('get'),
    logout('post'),
    define({
      method: 'post',
      path: '/realms/:realm/protocol/openid-connect/token',
      summary: "The realm's token endpoint (Keycloak's path): every grant; public clients send no secret",
      tags: ['token'],
      input: { path: S.RealmRef, merged: S.RealmTokenBody, mergedDefaults: basicCredentials },
      docs: tokenDocs.realm,
      responses: { 200: { description: 'Access token generated', schema: S.TokenResponse }, ...failures },
      handle: async (input, { ctx, res }) => noStore(res, await token.tokenAtRealm(input, ctx)),
    }),
    define({
      method: 'post',
      path: '/realms/:realm/protocol/openid-connect/revoke',
      summary: 'Revoke a token (RFC 7009) at the realm path: ends its session',
      tags: ['token'],
      input: { path: S.RealmRef, merged: S.RevokeRequest.omit({ realm: true }) },
      docs: tokenDocs.realm,
      ...revokeRoute(token),
    }),
    define({
      method: 'get',
      path: '/web-origins',
      summary: 'The web origins clients registered (CORS of processes apart)',
      tags: ['sign-in'],
      responses: { 200: { description: 'Origins', schema: S.WebOriginsResponse } },
      handle: async () => ({ origins: await token.webOrigins() }),
    }),
  ];
}
