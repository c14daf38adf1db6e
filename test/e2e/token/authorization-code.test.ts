import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { TokenCore } from '../../../core/token';
import { startInTemp, type Started } from '../shared/server';

/** Runs authorization-code.driver.mjs (openid-client 6 is ESM-only: its own node process). */
function drive(input: Record<string, unknown>): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(__dirname, 'authorization-code.driver.mjs'), JSON.stringify(input)],
      { timeout: 80_000, maxBuffer: 16 * 2 ** 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`openid-client 6 driver failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as Record<string, any>);
      },
    );
  });
}

/** The app behind the redirect URIs: it answers 200 and keeps every URL it was sent to. */
async function startCallbackApp(): Promise<{ origin: string; seen: string[]; server: Server }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** OpenID Connect Core §3.1.3.6: the left half of the SHA-256 of the access token, base64url. */
const atHash = (accessToken: string) => createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');

/** What the driver saw at a step, or the step's failure (the test names the step that did not happen). */
function at(seen: Record<string, any>, key: string): any {
  if (seen[key] === undefined)
    throw new Error(`the flow did not reach '${key}': ${JSON.stringify(seen.error ?? seen, null, 2).slice(0, 3000)}`);
  return seen[key];
}

/**
 * openid-client 6 (a certified relying party), unchanged but for allowInsecureRequests (plain HTTP),
 * signs a person in with the authorization code flow and PKCE (S256), from the issuer URL alone:
 * discovery, the authorization URL with state and nonce, the realm's login page fetched and its form
 * posted with the cookies the server set (as a browser would), the 302 to the redirect URI followed,
 * then the library's code exchange with its own checks (state, iss, nonce, max_age's auth_time), the
 * ID token checked here against the JWKS, refresh, single sign-on by the session cookie, prompt=login,
 * and a code used twice. A public client (no secret) and a confidential one (client_secret_basic).
 */
describe('openid-client 6: the authorization code flow with PKCE, a person signing in through the login page', () => {
  let server: Started;
  let boot: Record<string, string>;
  let issuer: string;
  let app: Awaited<ReturnType<typeof startCallbackApp>>;
  let started: number;
  let pub: Record<string, any>;
  let confidential: Record<string, any>;

  beforeAll(async () => {
    started = Math.floor(Date.now() / 1000);
    server = await startInTemp('all');
    boot = server.bootstrap!.values;
    issuer = `${server.url}/auth/api/v1/realms/${boot.realm}`;
    app = await startCallbackApp();
    const token = server.instances.token as unknown as TokenCore;
    await token.admin.createPublicClient({
      realm: boot.realm,
      clientId: 'node-public-app',
      redirectUris: [`${app.origin}/public/callback`],
    });
    const { client_secret } = await token.admin.createClient({
      realm: boot.realm,
      clientId: 'node-confidential-app',
      redirectUris: [`${app.origin}/confidential/callback`],
    });
    const person = { issuer, username: boot.username, password: boot.password, scenario: 'flows' };
    pub = await drive({ ...person, clientId: 'node-public-app', redirectUri: `${app.origin}/public/callback` });
    confidential = await drive({
      ...person,
      clientId: 'node-confidential-app',
      clientSecret: client_secret,
      redirectUri: `${app.origin}/confidential/callback`,
    });
  }, 180_000);
  afterAll(async () => {
    await new Promise((resolve) => app?.server.close(resolve));
    await server?.stop();
  });

  it('discovers the authorization and end-session endpoints, code + PKCE S256 only, query and fragment response modes', () => {
    expect(at(pub, 'metadata')).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
      token_endpoint: `${issuer}/protocol/openid-connect/token`,
      end_session_endpoint: expect.stringMatching(new RegExp(`^${issuer.replace(/[.]/g, '\\.')}/protocol/openid-connect/logout$`)),
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      response_modes_supported: expect.arrayContaining(['query', 'fragment']),
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
    });
  });

  it('sends the browser the login page, whose form posted with the cookies redirects (302) to the exact redirect URI with code, state and iss', () => {
    const url = new URL(at(pub, 'authorizationUrl'));
    expect(url.origin + url.pathname).toBe(`${issuer}/protocol/openid-connect/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'node-public-app',
      redirect_uri: `${app.origin}/public/callback`,
      scope: 'openid',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
    });
    const page = at(pub, 'loginPage');
    expect(page).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/html/) });
    expect(page.text).toMatch(/id="kc-form-login"/);
    expect(at(pub, 'form')).toMatchObject({ method: 'post', fields: expect.arrayContaining(['username', 'password']) });
    const after = at(pub, 'afterLogin');
    expect(after).toMatchObject({ status: 302 });
    const back = new URL(after.location);
    expect(back.origin + back.pathname).toBe(`${app.origin}/public/callback`);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ code: expect.any(String), state: pub.sentState, iss: issuer });
    expect(back.searchParams.has('error')).toBe(false);
    // The app received exactly that redirect.
    expect(at(pub, 'code').arrivedStatus).toBe(200);
    expect(app.seen).toContain(back.pathname + back.search);
  });

  it('keeps the single sign-on session in a cookie set at sign-in: HttpOnly, SameSite=Lax, not Secure over plain HTTP', () => {
    // The cookies the successful sign-in set (the login page's own anti-forgery cookie came before).
    const set = (at(pub, 'afterLogin').setCookies as string[]).filter((c) => !/max-age=0\b/i.test(c) && !/=;/.test(c));
    expect(set.length).toBeGreaterThan(0);
    for (const cookie of set) {
      expect(cookie).toMatch(/;\s*httponly/i);
      expect(cookie).toMatch(/;\s*samesite=lax/i);
      expect(cookie).not.toMatch(/;\s*secure/i);
      // For the realm's paths at least (the SSO of another client of the realm depends on it).
      const path = /;\s*path=([^;]*)/i.exec(cookie)?.[1] ?? '/';
      expect(`/auth/api/v1/realms/${boot.realm}/protocol/openid-connect/auth`.startsWith(path)).toBe(true);
    }
  });

  it('exchanges the code for tokens with an RS256 ID token for this client: nonce, auth_time, at_hash, sid, checked against the JWKS', async () => {
    const { tokens, claims } = at(pub, 'code');
    expect(tokens).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expect(String(tokens.scope).split(' ')).toContain('openid');
    expect(decodeProtectedHeader(tokens.id_token)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    const jwks = createRemoteJWKSet(new URL(pub.metadata.jwks_uri));
    const { payload } = await jwtVerify(tokens.id_token, jwks, { issuer, audience: 'node-public-app', algorithms: ['RS256'] });
    expect(payload).toEqual(claims);
    expect(claims).toMatchObject({
      iss: issuer,
      nonce: pub.sentNonce,
      at_hash: atHash(tokens.access_token),
      sid: expect.any(String),
      sub: expect.any(String),
    });
    expect([claims.aud].flat()).toEqual(['node-public-app']);
    // When the person signed in: a whole second, during this test, no later than the token.
    expect(Number.isInteger(claims.auth_time)).toBe(true);
    expect(claims.auth_time).toBeGreaterThanOrEqual(started - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(claims.iat);
    // The access token works where people's tokens work.
    const me = await fetch(`${issuer}/protocol/openid-connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ sub: claims.sub, preferred_username: boot.username });
  });

  it('refreshes the tokens it got by the code: new ones, in the same session', async () => {
    const refreshed = at(pub, 'refreshed');
    const first = pub.code.tokens;
    expect(refreshed).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(refreshed.access_token).not.toBe(first.access_token);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(refreshed.access_token).sid).toBe(decodeJwt(first.access_token).sid);
    const me = await fetch(`${issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ preferred_username: boot.username });
  });

  it('signs the person in again without the form while the session cookie lasts (the same auth_time); prompt=login shows the form', () => {
    const sso = at(pub, 'sso');
    expect(sso.page).toMatchObject({ status: 302 });
    expect(new URL(sso.page.location).searchParams.get('code')).toEqual(expect.any(String));
    // The same authentication: its time is the first sign-in's (OpenID Connect Core §2, auth_time).
    expect(sso.code.claims).toMatchObject({ sub: pub.code.claims.sub, auth_time: pub.code.claims.auth_time, sid: expect.any(String) });
    const forced = at(pub, 'promptLogin');
    expect(forced).toMatchObject({ status: 200 });
    expect(forced.text).toMatch(/id="kc-form-login"/);
  });

  it('refuses a code used a second time (invalid_grant), and revokes what its first use issued', () => {
    expect(at(pub, 'codeReused')).toMatchObject({ failed: true, status: 400, error: 'invalid_grant' });
    expect(at(pub, 'refreshAfterReuse')).toMatchObject({ failed: true, status: 400, error: 'invalid_grant' });
  });

  it('works the same for a confidential client (client_secret_basic) with PKCE', async () => {
    const { tokens, claims } = at(confidential, 'code');
    const jwks = createRemoteJWKSet(new URL(confidential.metadata.jwks_uri));
    await expect(jwtVerify(tokens.id_token, jwks, { issuer, audience: 'node-confidential-app' })).resolves.toBeDefined();
    expect(claims).toMatchObject({ nonce: confidential.sentNonce, at_hash: atHash(tokens.access_token) });
    expect(at(confidential, 'refreshed').access_token).toEqual(expect.any(String));
  });
});
