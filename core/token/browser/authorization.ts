import { RateLimited } from '../../shared/errors';
import type { Ctx } from '../../shared/context';
import { AuthenticationFailed, InvalidScope } from '../errors';
import type { ClientRecord, RealmRecord, UserRecord, BrowserSessionRecord } from '../ports';
import { grantScopes } from '../scopes';
import type { BrowserAnswer, BrowserRequest, CookieSet } from './answers';
import { errorPage, platformPath, redirectTo } from './answers';
import { registered } from './client-settings';
import type { BrowserDeps } from './deps';
import { readParams } from './params';
import { PKCE_VALUE } from './pkce';
import { newSecretValue, secretValueHash } from './secrets';
import { signedIn, startBrowserSession } from './sso';

/** Bounds on the authorization request's parameters (longer ones are refused before anything is looked up). */
const LIMITS = {
  client_id: 256,
  redirect_uri: 2000,
  response_type: 64,
  response_mode: 32,
  scope: 1000,
  state: 2000,
  nonce: 500,
  code_challenge: 128,
  code_challenge_method: 16,
  prompt: 64,
  max_age: 10,
  login_hint: 256,
};

/** A checked authorization request: what the code will be bound to. */
export interface AuthRequest {
  clientId: string;
  redirectUri: string;
  responseMode: 'query' | 'fragment';
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
}

const PROMPTS = new Set(['none', 'login']);

/**
 * Whether a form was posted by a page of the platform: no Origin (an old browser), PUBLIC_URL's
 * origin, or the origin the browser reached the platform by (its Host: a browser cannot send
 * another site's Origin with it).
 */
export const postedHere = (r: BrowserRequest, publicUrl: string): boolean =>
  r.origin === undefined || r.origin === new URL(publicUrl).origin || r.origin === r.self;

export const EXPIRED_PAGE = 'This page has expired, or was opened in another browser. Go back to the application and start again.';

/**
 * The authorization endpoint (RFC 6749 §4.1.1, OIDC Core §3.1.2) and its login form. Rules:
 * - a request whose client or redirect URI cannot be trusted is answered with an error page, never a
 *   redirect (no open redirects: the URI must equal a registered one, RFC 9700 §4.1.3);
 * - every other error goes back to the app as `error` with its `state`;
 * - PKCE is S256 only, and required from public clients;
 * - an open single sign-on session answers with a code at once, unless `prompt=login` or `max_age`
 *   asks for the password again; `prompt=none` never shows the form (`login_required`);
 * - the form posts back a signed copy of the request bound to the browser's anti-forgery cookie, and
 *   its failures say only what the token endpoints say (wrong credentials, or throttled).
 */
export function createAuthorization(deps: BrowserDeps) {
  const { store, clock, pages } = deps;
  const sameSite = (r: BrowserRequest) => postedHere(r, deps.publicUrl);

  async function issueCode(realm: RealmRecord, a: AuthRequest, user: UserRecord, browser: BrowserSessionRecord, cookies: CookieSet[] = []) {
    const code = newSecretValue();
    const now = clock.now();
    await store.codes.insert({
      codeHash: secretValueHash(code),
      realmId: realm.id,
      clientId: a.clientId,
      userId: user.id,
      browserSessionId: browser.id,
      redirectUri: a.redirectUri,
      scope: a.scope,
      nonce: a.nonce ?? null,
      codeChallenge: a.codeChallenge ?? null,
      authTime: browser.authTime,
      createdAt: now,
      expiresAt: now + deps.codeTtlMs,
      usedAt: null,
      sessionId: null,
    });
    return redirectTo(
      a.redirectUri,
      a.responseMode,
      { code, state: a.state, session_state: browser.id, iss: deps.issuerOf(realm.id) },
      cookies,
    );
  }

  /** The client and redirect URI of a request, when both can be trusted with a redirect. */
  async function trusted(
    realm: RealmRecord,
    clientId: string | undefined,
    redirectUri: string | undefined,
  ): Promise<{ error: BrowserAnswer } | { client: ClientRecord }> {
    if (!clientId) return { error: errorPage(400, 'Sign-in request refused', 'The request names no application (client_id is missing).') };
    const client = await store.clients.get(realm.id, clientId);
    if (!client?.enabled)
      return { error: errorPage(400, 'Sign-in request refused', 'The application (client_id) is unknown to this realm.') };
    if (!redirectUri) return { error: errorPage(400, 'Sign-in request refused', 'The request has no redirect_uri.') };
    if (!registered(client.redirectUris, redirectUri, deps.publicUrl))
      return { error: errorPage(400, 'Sign-in request refused', 'The redirect_uri is not registered for this application.') };
    return { client };
  }

  async function loginForm(
    realm: RealmRecord,
    a: AuthRequest,
    r: BrowserRequest,
    username: string,
    failure?: { status: 401 | 429; error: string },
  ) {
    const csrf = pages.csrf(r.cookies);
    const request = await pages.sign(realm, 'login', csrf.value, {
      c: a.clientId,
      r: a.redirectUri,
      m: a.responseMode,
      s: a.scope,
      st: a.state,
      n: a.nonce,
      cc: a.codeChallenge,
    });
    return {
      kind: 'login',
      status: failure?.status ?? 200,
      realmName: realm.name,
      action: platformPath(deps.publicUrl, `/auth/api/v1/realms/${realm.id}/login-actions/authenticate`),
      request,
      username,
      error: failure?.error,
      cookies: csrf.cookies,
    } satisfies BrowserAnswer;
  }

  function check(
    client: ClientRecord,
    p: Partial<Record<keyof typeof LIMITS, string>>,
  ): { error: string; description: string } | { scope: string; prompt: Set<string>; maxAge: number | undefined } {
    if (p.response_type !== 'code') return { error: 'unsupported_response_type', description: 'response_type must be code' };
    if (p.code_challenge_method !== undefined && p.code_challenge_method !== 'S256')
      return { error: 'invalid_request', description: 'code_challenge_method must be S256 (plain is not supported)' };
    if (p.code_challenge !== undefined && p.code_challenge_method === undefined)
      return { error: 'invalid_request', description: 'code_challenge_method=S256 is required with code_challenge' };
    if (p.code_challenge !== undefined && !(PKCE_VALUE.test(p.code_challenge) && p.code_challenge.length === 43))
      return { error: 'invalid_request', description: 'code_challenge must be the S256 of a verifier (43 characters, base64url)' };
    if (client.secretHash === null && p.code_challenge === undefined)
      return { error: 'invalid_request', description: 'PKCE is required: send code_challenge with code_challenge_method=S256' };
    if (p.max_age !== undefined && !/^\d{1,9}$/.test(p.max_age))
      return { error: 'invalid_request', description: 'max_age must be a number of seconds' };
    const prompt = new Set((p.prompt ?? '').split(' ').filter(Boolean));
    if ([...prompt].some((x) => !PROMPTS.has(x)) || (prompt.has('none') && prompt.size > 1))
      return { error: 'invalid_request', description: 'prompt must be none or login' };
    let scope: string[];
    try {
      scope = grantScopes(client.scopes, p.scope);
    } catch (err) {
      if (err instanceof InvalidScope) return { error: 'invalid_scope', description: err.message };
      throw err;
    }
    return { scope: scope.join(' '), prompt, maxAge: p.max_age === undefined ? undefined : Number(p.max_age) };
  }

  return {
    async authorize(r: BrowserRequest): Promise<BrowserAnswer> {
      const realm = await deps.resolveRealm(r.realm);
      const read = readParams(r.params, LIMITS);
      if ('error' in read) return errorPage(400, 'Sign-in request refused', `The request is malformed: ${read.error}.`);
      const p = read.values;
      const t = await trusted(realm, p.client_id, p.redirect_uri);
      if ('error' in t) return t.error;
      const redirectUri = p.redirect_uri!;
      const mode = p.response_mode === 'fragment' ? 'fragment' : 'query';
      const fail = (error: string, description: string) =>
        redirectTo(redirectUri, mode, { error, error_description: description, state: p.state, iss: deps.issuerOf(realm.id) });
      if (p.response_mode !== undefined && p.response_mode !== 'query' && p.response_mode !== 'fragment')
        return fail('invalid_request', 'response_mode must be query or fragment');
      const c = check(t.client, p);
      if ('error' in c) return fail(c.error, c.description);
      const a: AuthRequest = {
        clientId: t.client.clientId,
        redirectUri,
        responseMode: mode,
        scope: c.scope,
        state: p.state,
        nonce: p.nonce,
        codeChallenge: p.code_challenge,
      };
      const current = await signedIn(deps, realm, r.cookies);
      // OIDC Core §3.1.2.1: max_age=0 asks for the password again, as prompt=login does.
      const recent = current && (c.maxAge === undefined || clock.now() - current.browser.authTime < c.maxAge * 1000);
      if (current && recent && !c.prompt.has('login')) return issueCode(realm, a, current.user, current.browser);
      if (c.prompt.has('none')) return fail('login_required', 'The person is not signed in');
      return loginForm(realm, a, r, p.login_hint ?? '');
    },

    /** The login form posted back: the password checked under the failure counts, then a new browser session and a code. */
    async login(r: BrowserRequest, ctx: Ctx): Promise<BrowserAnswer> {
      const realm = await deps.resolveRealm(r.realm);
      if (!sameSite(r)) return errorPage(403, 'Sign-in refused', 'The sign-in form was posted from another site.');
      const read = readParams(r.params, { username: 256, password: 1024, request: 8192 });
      if ('error' in read) return errorPage(400, 'Sign-in refused', `The form is malformed: ${read.error}.`);
      const claims = await pages.verify(realm, 'login', read.values.request, r.cookies);
      if (!claims) return errorPage(400, 'Sign-in page expired', EXPIRED_PAGE);
      const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const t = await trusted(realm, s(claims.c), s(claims.r));
      if ('error' in t) return t.error;
      const a: AuthRequest = {
        clientId: t.client.clientId,
        redirectUri: s(claims.r)!,
        responseMode: claims.m === 'fragment' ? 'fragment' : 'query',
        scope: s(claims.s) ?? '',
        state: s(claims.st),
        nonce: s(claims.n),
        codeChallenge: s(claims.cc),
      };
      const username = read.values.username ?? '';
      let user: UserRecord;
      try {
        user = await deps.auth.throttled(ctx, (attempt) => deps.auth.user(attempt, realm, username, read.values.password ?? ''));
      } catch (err) {
        if (err instanceof AuthenticationFailed)
          return loginForm(realm, a, r, username, { status: 401, error: 'Invalid username or password.' });
        if (err instanceof RateLimited)
          return loginForm(realm, a, r, username, { status: 429, error: 'Too many failed sign-ins. Wait a minute, then try again.' });
        throw err;
      }
      const started = await startBrowserSession(deps, realm, user, r.cookies);
      // A new anti-forgery value after a sign-in: pages rendered before it cannot be posted again.
      const rotated = pages.csrf({});
      return issueCode(realm, a, user, started.browser, [...started.cookies, ...rotated.cookies]);
    },
  };
}
