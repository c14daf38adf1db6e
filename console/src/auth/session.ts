import { challengeOf, claimsOf, random } from './pkce';

/**
 * Signing a person in to the console (docs/console.md): the authorization-code flow with PKCE as
 * the public client `platform-console` of the realm, whose registered redirect and post-logout URI
 * is PUBLIC_URL + '/console/' (this page). The access token lives in memory and is renewed with the
 * refresh token a minute before it expires; the refresh and ID tokens are kept in the tab's
 * sessionStorage so that a reload stays signed in (the page runs only its own scripts, by its
 * Content Security Policy). Signing out goes through the realm's end-session endpoint.
 */
const CLIENT_ID = 'platform-console';
const PENDING = 'console:pending';
const KEPT = 'console:tokens';
const REALM = 'console:realm';

export interface Person {
  username: string;
  realm: string;
  roles: string[];
  tenant: string;
}

export type SessionState =
  | { status: 'signed-out'; error?: string; notice?: string }
  | { status: 'working'; message: string }
  | { status: 'signed-in'; person: Person };

interface Tokens {
  access: string;
  expiresAt: number;
  refresh?: string;
  idToken?: string;
}

const pageUrl = () => `${location.origin}/console/`;
const oidcOf = (realm: string) => `${location.origin}/auth/api/v1/realms/${encodeURIComponent(realm)}/protocol/openid-connect/`;

let state: SessionState = { status: 'working', message: 'Loading…' };
let tokens: Tokens | undefined;
let realm = sessionStorage.getItem(REALM) ?? 'default';
let timer: ReturnType<typeof setTimeout> | undefined;
let working: Promise<void> | undefined;
const listeners = new Set<() => void>();

function set(next: SessionState) {
  state = next;
  listeners.forEach((l) => l());
}

export const session = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: () => state,
  realm: () => realm,
  /** The bearer for the next operation: renewed first when it is about to expire. */
  async bearer(): Promise<string | undefined> {
    if (tokens && tokens.expiresAt - Date.now() < 15_000) await refresh();
    return tokens?.access;
  },
  signIn,
  signOut,
  start,
  /**
   * This tab's session was ended on purpose (its person ended it, or signed out everywhere, on the
   * My sessions page): its tokens are forgotten, with `notice` on the sign-in page. The end-session
   * endpoint has nothing left to end.
   */
  ended: (notice: string) => forget(undefined, notice),
  /**
   * The graph refused the token as revoked: the session was ended elsewhere (another browser of the
   * person, an administrator). Its refresh token is dead too: signed out, saying so.
   */
  revoked: () => {
    if (state.status === 'signed-in') forget('Your session was ended (from another browser, or by an administrator). Sign in again.');
  },
};

class TokenError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function tokenRequest(form: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(`${oidcOf(realm)}token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string')
    throw new TokenError(text(body.error_description) || text(body.error) || `the token endpoint answered ${res.status}`, res.status);
  return body;
}

/** A claim or field that is a string, else `fallback`. */
const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

function personOf(t: Tokens): Person {
  const id = claimsOf(t.idToken);
  const access = claimsOf(t.access);
  const realmAccess = access.realm_access as { roles?: string[] } | undefined;
  return {
    username: text(id.preferred_username) || text(access.preferred_username) || text(access.sub, 'someone'),
    realm: text(access.iss).split('/realms/')[1] ?? realm,
    roles: realmAccess?.roles ?? [],
    tenant: text(access.tenant_id),
  };
}

function keep(answer: Record<string, unknown>) {
  const before = tokens;
  const expiresIn = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 300;
  tokens = {
    access: answer.access_token as string,
    expiresAt: Date.now() + expiresIn * 1000,
    refresh: (answer.refresh_token as string | undefined) ?? before?.refresh,
    idToken: (answer.id_token as string | undefined) ?? before?.idToken,
  };
  if (tokens.refresh) sessionStorage.setItem(KEPT, JSON.stringify({ refresh: tokens.refresh, idToken: tokens.idToken }));
  clearTimeout(timer);
  if (tokens.refresh) timer = setTimeout(() => void refresh(), Math.max(expiresIn > 120 ? expiresIn - 60 : expiresIn / 2, 1) * 1000);
  set({ status: 'signed-in', person: personOf(tokens) });
}

function forget(error?: string, notice?: string) {
  tokens = undefined;
  clearTimeout(timer);
  sessionStorage.removeItem(KEPT);
  set({ status: 'signed-out', error, notice });
}

function refresh(): Promise<void> {
  if (working) return working;
  const kept = tokens?.refresh;
  if (!kept) return Promise.resolve();
  working = tokenRequest({ grant_type: 'refresh_token', refresh_token: kept, client_id: CLIENT_ID })
    .then(keep, (err: unknown) => {
      if (err instanceof TokenError && (err.status === 400 || err.status === 401)) forget(`Your session ended (${err.message}).`);
    })
    .finally(() => {
      working = undefined;
    });
  return working;
}

async function signIn(inRealm = realm) {
  if (!window.crypto?.subtle) {
    set({ status: 'signed-out', error: 'Signing in needs HTTPS or localhost: this browser offers no Web Crypto on a plain-HTTP address.' });
    return;
  }
  realm = inRealm.trim() || 'default';
  sessionStorage.setItem(REALM, realm);
  const verifier = random(32);
  const pending = { state: random(16), nonce: random(16), verifier };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: pageUrl(),
    scope: 'openid',
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  });
  set({ status: 'working', message: 'Going to the sign-in page…' });
  location.assign(`${oidcOf(realm)}auth?${query}`);
}

function signOut() {
  const idToken = tokens?.idToken;
  forget();
  const query = new URLSearchParams({ client_id: CLIENT_ID, post_logout_redirect_uri: pageUrl() });
  if (idToken) query.set('id_token_hint', idToken);
  set({ status: 'working', message: 'Signing out…' });
  location.assign(`${oidcOf(realm)}logout?${query}`);
}

async function finishSignIn(params: URLSearchParams) {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { state: string; nonce: string; verifier: string } | null;
  sessionStorage.removeItem(PENDING);
  if (!pending || params.get('state') !== pending.state) throw new Error('the answer does not match a sign-in started in this tab');
  if (params.has('error')) throw new Error(params.get('error_description') ?? params.get('error') ?? 'refused');
  const answer = await tokenRequest({
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    redirect_uri: pageUrl(),
    client_id: CLIENT_ID,
    code_verifier: pending.verifier,
  });
  const id = claimsOf(answer.id_token as string | undefined);
  if (id.nonce !== pending.nonce || ![id.aud].flat().includes(CLIENT_ID)) throw new Error('the ID token is not for this sign-in');
  keep(answer);
}

/** On load: back from the login page with a code, or a kept session from this tab, or signed out. */
async function start() {
  const params = new URLSearchParams(location.search);
  try {
    if (params.has('code') || params.has('error')) {
      history.replaceState(null, '', `/console/${location.hash}`);
      set({ status: 'working', message: 'Signing in…' });
      await finishSignIn(params);
      return;
    }
    const kept = JSON.parse(sessionStorage.getItem(KEPT) ?? 'null') as { refresh?: string; idToken?: string } | null;
    if (kept?.refresh) {
      tokens = { access: '', expiresAt: 0, refresh: kept.refresh, idToken: kept.idToken };
      await refresh();
      if (tokens?.access) return;
    }
    forget();
  } catch (err) {
    forget(`Sign-in failed: ${(err as Error).message}`);
  }
}
