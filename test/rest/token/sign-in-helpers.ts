import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import request from 'supertest';
import { createTokenVerifier, issuerBaseFor } from '../../../core/shared/auth/verifier';
import { openTokenCore, type TokenCore } from '../../../core/token';
import type { TokenStores } from '../../../core/token/ports';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { createRestApp } from '../../../rest/shared/app';
import { tokenRest } from '../../../rest/token';
import { fastHasher, pooledKeys, PUBLIC_URL, testClock, type FixtureOptions } from '../../shared/helpers';

export { PUBLIC_URL };
export const BASE = '/auth/api/v1';
export const issuerOf = (realmId: string) => `${PUBLIC_URL}${BASE}/realms/${realmId}`;
export const SSO_PREFIX = 'platform_sso_';
export const CSRF = 'platform_csrf';

/** The apps a test signs in to: two public clients (SPAs) and a confidential one, with their registered URIs. */
export const SPA = {
  clientId: 'spa',
  redirectUri: 'https://app.example/callback',
  postLogout: 'https://app.example/signed-out',
  origin: 'https://app.example',
};
export const SPA2 = { clientId: 'spa-two', redirectUri: 'https://two.example/cb', postLogout: 'https://two.example/bye' };
export const WEB = { clientId: 'web', redirectUri: 'https://web.example/oidc/callback' };
export const ALICE = { username: 'alice', password: 'correct horse battery' };

/** How many rows the browser flow wrote: codes and browser sessions (counted at the store's port). */
export interface Writes {
  codes: number;
  browserSessions: number;
}

export interface SignInFixture {
  core: TokenCore;
  clock: ReturnType<typeof testClock>;
  realm: string;
  otherRealm: string;
  webSecret: string;
  server: Server;
  writes: Writes;
  /** A supertest agent-less request against the one listening server. */
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

/** Wraps the store so inserts of codes and browser sessions are counted (the flood test reads them). */
function counting(stores: TokenStores, writes: Writes): TokenStores {
  const { store } = stores;
  const codes = { ...store.codes, insert: (c: Parameters<typeof store.codes.insert>[0]) => (writes.codes++, store.codes.insert(c)) };
  const browserSessions = {
    ...store.browserSessions,
    insert: (s: Parameters<typeof store.browserSessions.insert>[0]) => (writes.browserSessions++, store.browserSessions.insert(s)),
  };
  return { ...stores, store: { ...store, codes, browserSessions } };
}

/** An in-memory token core (cheap crypto) with a realm `main`, its user alice, the clients above, and a realm `other`, served by the real REST app. */
export async function signInFixture(opts: FixtureOptions = {}): Promise<SignInFixture> {
  const clock = testClock();
  const writes: Writes = { codes: 0, browserSessions: 0 };
  const core = await openTokenCore({
    stores: counting(sqliteTokenStores(':memory:'), writes),
    publicUrl: PUBLIC_URL,
    clock,
    lockout: opts.lockout,
    authFailuresPerMinute: opts.authFailuresPerMinute,
    audience: ['account', 'search'],
    hasher: fastHasher,
    generateKey: pooledKeys,
  });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  const otherRealm = (await core.admin.createRealm({ name: 'other' })).id;
  await core.admin.createPublicClient({
    realm,
    clientId: SPA.clientId,
    redirectUris: [SPA.redirectUri],
    postLogoutRedirectUris: [SPA.postLogout],
    webOrigins: [SPA.origin],
  });
  await core.admin.createPublicClient({
    realm,
    clientId: SPA2.clientId,
    redirectUris: [SPA2.redirectUri],
    postLogoutRedirectUris: [SPA2.postLogout],
  });
  await core.admin.createPublicClient({ realm: otherRealm, clientId: SPA.clientId, redirectUris: [SPA.redirectUri] });
  const web = await core.admin.createClient({ realm, clientId: WEB.clientId, redirectUris: [WEB.redirectUri], roles: ['search:read'] });
  await core.admin.createUser({ realm, ...ALICE, roles: ['search:read'], tenantId: 'tenant-a', email: 'alice@example.com' });
  await core.admin.createUser({ realm: otherRealm, ...ALICE, roles: ['search:read'] });
  const verifier = createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: core.keySource, clock });
  const app = createRestApp([tokenRest(core.service, PUBLIC_URL)], {
    log: pino({ level: 'silent' }),
    verifier,
    trustProxy: opts.trustProxy,
    bodyLimitBytes: opts.bodyLimitBytes,
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  writes.codes = 0;
  writes.browserSessions = 0;
  return {
    core,
    clock,
    realm,
    otherRealm,
    webSecret: web.client_secret,
    server,
    writes,
    http: () => request(server),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}

/** RFC 7636: a verifier and its S256 challenge. */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser's cookie jar: what the server set (Max-Age=0 or a past Expires removes), sent back as a Cookie header. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(readonly headers: Record<string, string> = {}) {}

  take(res: request.Response): request.Response {
    for (const line of setCookies(res)) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now()));
      if (gone || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  sso(realmId: string): string | undefined {
    return this.cookies.get(SSO_PREFIX + realmId);
  }
}

export const setCookies = (res: request.Response): string[] => {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
};

/** The names of the cookies a response sets (with a value, not cleared). */
export const cookiesSet = (res: request.Response): string[] =>
  setCookies(res)
    .filter((c) => !/max-age=0/i.test(c) && !/^[^=]+=;/.test(c))
    .map((c) => c.slice(0, c.indexOf('=')));

export interface AuthParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  prompt?: string;
  max_age?: string;
  login_hint?: string;
  response_mode?: string;
  [k: string]: string | undefined;
}

/** An authorization request of the SPA (public client, PKCE S256), with whatever `over` changes (undefined removes). */
export function spaParams(over: AuthParams = {}, challenge = pkce().challenge): Record<string, string> {
  const p: AuthParams = {
    response_type: 'code',
    client_id: SPA.clientId,
    redirect_uri: SPA.redirectUri,
    scope: 'openid',
    state: 'st-' + randomBytes(4).toString('hex'),
    nonce: 'n-' + randomBytes(4).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...over,
  };
  return Object.fromEntries(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined));
}

/** GET (or POST) the authorization endpoint as `browser`, keeping the cookies it sets. */
export async function authorize(
  f: SignInFixture,
  b: Browser,
  params: Record<string, string>,
  realmRef = f.realm,
  method: 'get' | 'post' = 'get',
) {
  const path = `${BASE}/realms/${encodeURIComponent(realmRef)}/protocol/openid-connect/auth`;
  const res =
    method === 'get'
      ? await f.http().get(path).query(params).set(b.headers).set('Cookie', b.header())
      : await f.http().post(path).type('form').send(params).set(b.headers).set('Origin', PUBLIC_URL).set('Cookie', b.header());
  return b.take(res);
}

export interface LoginForm {
  action: string;
  request: string;
  username: string;
}

/** The login form of a page (#kc-form-login): where it posts, its signed request, the prefilled username. */
export function loginForm(res: request.Response): LoginForm {
  const html = res.text;
  const form = /<form id="kc-form-login" method="post" action="([^"]+)">/.exec(html);
  const req = /<input type="hidden" name="request" value="([^"]+)">/.exec(html);
  const user = /<input id="username" name="username"[^>]*value="([^"]*)"/.exec(html);
  if (!form || !req || !user) throw new Error(`no login form in the page (${res.status}): ${html.slice(0, 600)}`);
  const unesc = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  return { action: unesc(form[1]), request: unesc(req[1]), username: unesc(user[1]) };
}

/** The path a page's form posts to (its action is a path, or a URL on PUBLIC_URL). */
export function actionPath(action: string): string {
  const url = new URL(action, PUBLIC_URL);
  expect(url.origin).toBe(PUBLIC_URL);
  return url.pathname + url.search;
}

/** Posts the login form as `browser` (same-site Origin unless `headers` says otherwise). */
export async function submitLogin(
  f: SignInFixture,
  b: Browser,
  form: LoginForm,
  credentials: { username: string; password: string } = ALICE,
  headers: Record<string, string> = { Origin: PUBLIC_URL },
) {
  const res = await f
    .http()
    .post(actionPath(form.action))
    .type('form')
    .set(b.headers)
    .set(headers)
    .set('Cookie', b.header())
    .send({ request: form.request, ...credentials });
  return b.take(res);
}

/** The parameters a redirect carries back to the app (query or fragment), and the URL it goes to without them. */
export function redirected(res: request.Response): { to: string; params: URLSearchParams; mode: 'query' | 'fragment' } {
  expect(res.status).toBe(302);
  const location = String(res.headers.location);
  const hash = location.indexOf('#');
  if (hash >= 0) return { to: location.slice(0, hash), params: new URLSearchParams(location.slice(hash + 1)), mode: 'fragment' };
  const q = location.indexOf('?');
  return { to: q >= 0 ? location.slice(0, q) : location, params: new URLSearchParams(q >= 0 ? location.slice(q + 1) : ''), mode: 'query' };
}

/** Signs alice in through the form for the SPA: the code, its verifier and what the app asked. */
export async function signIn(f: SignInFixture, b: Browser, over: AuthParams = {}, realmRef = f.realm) {
  const p = pkce();
  const params = spaParams(over, p.challenge);
  const page = await authorize(f, b, params, realmRef);
  expect(page.status).toBe(200);
  const done = await submitLogin(f, b, loginForm(page));
  const back = redirected(done);
  return { code: back.params.get('code')!, verifier: p.verifier, params, back, response: done };
}

/** The realm's token endpoint, with a form body. */
export const tokenAt = (f: SignInFixture, body: Record<string, string>, realmRef = f.realm) =>
  f
    .http()
    .post(`${BASE}/realms/${encodeURIComponent(realmRef)}/protocol/openid-connect/token`)
    .type('form')
    .send(body);

/** The SPA's code exchange (no secret, PKCE verifier). */
export const exchange = (f: SignInFixture, code: string, verifier: string | undefined, over: Record<string, string | undefined> = {}) =>
  tokenAt(
    f,
    Object.fromEntries(
      Object.entries({
        grant_type: 'authorization_code',
        code,
        redirect_uri: SPA.redirectUri,
        client_id: SPA.clientId,
        code_verifier: verifier,
        ...over,
      }).filter((e): e is [string, string] => e[1] !== undefined),
    ),
  );

/** Whether an access token is active (the realm's introspection, asked as the confidential client). */
export async function active(f: SignInFixture, token: string): Promise<boolean> {
  const res = await f
    .http()
    .post(`${BASE}/realms/${f.realm}/protocol/openid-connect/token/introspect`)
    .type('form')
    .send({ token, client_id: WEB.clientId, client_secret: f.webSecret });
  expect(res.status).toBe(200);
  return res.body.active === true;
}

/** A refresh of the SPA's refresh token: its status and body. */
export const refresh = (f: SignInFixture, refreshToken: string, clientId = SPA.clientId) =>
  tokenAt(f, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });

/** Whether the browser's SSO cookie still signs in (prompt=none answers a code, not login_required). */
export async function ssoWorks(f: SignInFixture, b: Browser): Promise<boolean> {
  const res = await authorize(f, b, spaParams({ prompt: 'none' }));
  const back = redirected(res);
  return back.params.has('code');
}
