import { startInTemp, type Started } from '../shared/server';

/**
 * A whole platform (`all`: the gateway over every subgraph) for the admin fields' tests, driven
 * over real HTTP: GraphQL at the gateway's `/graphql`, the admin REST API beside it, sign-in at the
 * token service's password grant. The first start's platform administrator is `boot.admin_username`.
 */
export interface GqlAnswer {
  status: number;
  data?: Record<string, any> | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string } }[];
  raw: string;
}

export interface AdminPlatform {
  p: Started;
  boot: Record<string, string>;
  /** A password-grant access token of `username` in `realm`. */
  login(realm: string, username: string, password: string): Promise<string>;
  gql(token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<GqlAnswer>;
  rest(
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; etag: string | null }>;
  stop(): Promise<void>;
}

export async function adminPlatform(env: Record<string, string> = {}): Promise<AdminPlatform> {
  const p = await startInTemp('all', env);
  const boot = p.bootstrap!.values;
  return {
    p,
    boot,
    async login(realm, username, password) {
      const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
        method: 'POST',
        body: new URLSearchParams({ realm, username, password }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`login of ${username} in ${realm}: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async gql(token, query, variables) {
      const res = await fetch(`${p.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      const raw = await res.text();
      return { status: res.status, raw, ...(JSON.parse(raw) as object) };
    },
    async rest(token, method, path, body, headers = {}) {
      const res = await fetch(`${p.url}/admin/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, etag: res.headers.get('etag') };
    },
    stop: () => p.stop(),
  };
}

/** The codes of an answer's errors (`extensions.code`). */
export const codes = (a: GqlAnswer): (string | undefined)[] => (a.errors ?? []).map((e) => e.extensions?.code);

/** The data of an answer that must have succeeded. */
export function ok(a: GqlAnswer): Record<string, any> {
  if (a.errors?.length || !a.data) throw new Error(`GraphQL errors: ${a.raw.slice(0, 2000)}`);
  return a.data;
}

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** A REST admin view as GraphQL shows it: its fields camelCased. */
export const camelView = (view: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(view).map(([k, v]) => [camel(k), v]));

/** Every field of each admin type, as a selection (so an answer can be compared whole with the REST view). */
export const F = {
  realm: 'realm name enabled accessTokenLifespan refreshTokenLifespan createdAt default version',
  client:
    'clientId realm tenantId enabled public roles scopes redirectUris postLogoutRedirectUris webOrigins createdAt version clientSecret',
  user: 'id username realm tenantId email emailVerified enabled locked roles createdAt version sessionsEnded',
  session: 'id realm username authTime createdAt expiresAt',
};

/**
 * A REST view as GraphQL answers it for the selection `fields`: camelCased, and null for the
 * fields the view leaves out (`clientSecret` of a read, `sessionsEnded` of anything but a new password).
 */
export const asGraph = (view: Record<string, unknown>, fields: string): Record<string, unknown> => {
  const c = camelView(view);
  return Object.fromEntries(fields.split(/\s+/).map((f) => [f, f in c ? c[f] : null]));
};

/** An object without its null fields (GraphQL answers the fields a REST view leaves out as null). */
export const present = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

/** RFC 7636 appendix B's PKCE pair: the challenge sign-ins send, and its verifier. */
const PKCE = { challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' };

/**
 * Opens a single sign-on session for `username` in `realm` as a browser does: the authorization
 * endpoint for a public client registered with `redirectUri`, then its login form. The session is
 * what `adminSessions` lists. Resolves to where the browser is sent back (with the code).
 */
export async function browserSignIn(
  p: Started,
  realm: string,
  clientId: string,
  redirectUri: string,
  credentials: { username: string; password: string },
): Promise<string> {
  const base = `${p.url}/auth/api/v1/realms/${encodeURIComponent(realm)}/protocol/openid-connect/auth`;
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid',
    state: 'st',
    code_challenge: PKCE.challenge,
    code_challenge_method: 'S256',
  });
  const page = await fetch(`${base}?${params}`);
  const html = await page.text();
  const cookies = page.headers.getSetCookie().map((c) => c.split(';')[0]);
  const action = /<form id="kc-form-login" method="post" action="([^"]+)">/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  const request = /<input type="hidden" name="request" value="([^"]+)">/
    .exec(html)?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  if (!action || !request) throw new Error(`no login form (${page.status}): ${html.slice(0, 500)}`);
  const to = new URL(action, p.config.PUBLIC_URL);
  const done = await fetch(`${p.url}${to.pathname}${to.search}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: p.config.PUBLIC_URL, cookie: cookies.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, ...credentials }),
  });
  if (done.status !== 302) throw new Error(`sign-in: ${done.status} ${(await done.text()).slice(0, 500)}`);
  return done.headers.get('location') ?? '';
}

/**
 * Signs `username` in through the login page in a browser of its own (a new single sign-on
 * session) as the console does, and exchanges the code: the session's access and refresh tokens.
 */
export async function browserTokens(
  p: Started,
  realm: string,
  credentials: { username: string; password: string },
): Promise<{ access_token: string; refresh_token: string }> {
  const redirect = `${p.config.PUBLIC_URL}/console/`;
  const back = new URL(await browserSignIn(p, realm, 'platform-console', redirect, credentials));
  const res = await fetch(`${p.url}/auth/api/v1/realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: redirect,
      client_id: 'platform-console',
      code_verifier: PKCE.verifier,
    }),
  });
  const body = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (!body.access_token || !body.refresh_token) throw new Error(`code exchange: ${res.status} ${JSON.stringify(body)}`);
  return { access_token: body.access_token, refresh_token: body.refresh_token };
}
