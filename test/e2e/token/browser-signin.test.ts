import { writeFileSync } from 'node:fs';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { startInTemp, type Started } from '../shared/server';
import { startBrowserApps, type BrowserApps } from './browser-apps/server';

/**
 * People sign in to single-page apps in a real browser (Debian's Chromium, driven by playwright-core)
 * with the two client libraries frontend teams use, unchanged, from their browser builds: keycloak-js
 * (Keycloak's adapter, configured with the server URL `<PUBLIC_URL>/auth/api/v1` and the realm's
 * name) and oidc-client-ts (configured with the realm's issuer, which it discovers). Each app is
 * served by the test on an origin of its own (http://127.0.0.1:<port>), registered as a public
 * client with its redirect URI, post-logout URI and web origin. The person types the demo user's
 * name and password into the realm's login page; the app exchanges the code (PKCE, S256) from the
 * browser, calls /graphql with the token (CORS), refreshes, and signs out (RP-initiated logout),
 * after which the tokens are refused. A second app signs in with no password while the first is
 * signed in (single sign-on), and asks for it again after the first signed out. axe-core checks the
 * login page and the logout confirmation page (no serious or critical violation; all it finds is
 * left in browser-signin-axe.json in the temporary folder). Nothing is fetched but from the apps
 * and the platform (offline). Runs when CHROMIUM_PATH names a Chromium (skipped otherwise).
 */
const d = CHROMIUM_PATH ? describe : describe.skip;
const AXE_REPORT = join(tmpdir(), 'browser-signin-axe.json');
/** A test drives a browser through several sign-ins: room for a loaded machine (each wait has its own deadline). */
const BROWSER_TEST_MS = 240_000;

/** What the page's code below reads of the browser (the project compiles without the DOM lib; types are erased). */
interface InPage {
  document: { getElementById(id: string): { textContent: string | null; dataset: Record<string, string> } | null };
  app: {
    token(): string | Promise<string>;
    idToken(): string | Promise<string>;
    refresh(): Promise<string>;
    whoami(): Promise<string>;
  };
  axe: { run(context?: unknown, options?: unknown): Promise<{ violations: AxeViolation[] }> };
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown; html: string }[];
}

interface AppState {
  state: string;
  username: string;
  error: string;
  url: string;
}

/** What the page shows as text (a failure names it: a server's error page, the app's error). */
const shownText = async (page: Page) =>
  `${page.url()}:\n${(
    await page
      .locator('body')
      .innerText()
      .catch(() => '')
  ).slice(0, 1500)}`;

/**
 * Where the app stands once its start is over (it may first go through the login page): `signed-in`,
 * `signed-out` or `error`. `noLoginPage`: the login page showing is a failure (single sign-on), told at once.
 */
async function appState(page: Page, { noLoginPage = false } = {}): Promise<AppState> {
  // The app's answer, or a page that is neither the app nor the login form (a server's error page).
  const other = noLoginPage ? 'body:not(:has(#status))' : 'body:not(:has(#status)):not(:has(form#kc-form-login))';
  await page.locator(`#status:not([data-state="loading"]), ${other}`).first().waitFor({ timeout: 60_000 });
  if (!(await page.locator('#status').count())) throw new Error(`not back at the app: ${await shownText(page)}`);
  const shown = await page.evaluate(() => {
    const doc = (globalThis as unknown as InPage).document;
    return {
      state: doc.getElementById('status')!.dataset.state,
      username: doc.getElementById('signed-in-as')!.textContent ?? '',
      error: doc.getElementById('error')!.textContent ?? '',
    };
  });
  // An error in the page says more with what the browser logged (a CORS refusal is only told there).
  const logged = shown.state === 'error' ? (consoleErrors.get(page) ?? []) : [];
  return { ...shown, error: [shown.error, ...logged].join('\n'), url: page.url() };
}

/** What each page logged as errors (the browser tells a CORS refusal there, not to the script). */
const consoleErrors = new WeakMap<Page, string[]>();
function keepConsoleErrors(page: Page) {
  const errors: string[] = [];
  consoleErrors.set(page, errors);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
}

/** Waits for the realm's login page; fails at once, saying what shows, if the app or another page shows instead. */
async function loginPage(page: Page) {
  await page
    .locator('form#kc-form-login, #status:not([data-state="loading"]), body:not(:has(#status))')
    .first()
    .waitFor({ timeout: 60_000 });
  await page.waitForLoadState('load');
  if (!(await page.locator('form#kc-form-login').count())) throw new Error(`no login page: ${await shownText(page)}`);
}

/** The login page shown again after wrong credentials, with its message; fails at once, saying what shows, if another page shows instead. */
async function loginError(page: Page) {
  await page.locator('#input-error, body:not(:has(form#kc-form-login))').first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('load');
  const error = page.locator('#input-error');
  if (!(await error.count()) || !(await page.locator('form#kc-form-login').count()))
    throw new Error(`no login page with an error: ${await shownText(page)}`);
  return error.first();
}

/** The realm's login page is showing: the person types a name and a password and submits. */
async function typeCredentials(page: Page, username: string, password: string) {
  await loginPage(page);
  const form = page.locator('form#kc-form-login');
  await form.locator('input#username').fill(username);
  await form.locator('input#password[type="password"]').fill(password);
  await form.locator('button#kc-login[type="submit"]').click();
}

/** Every answer to the authorization endpoint the page got (a 200 is the login page; a 302 sends a code back). */
function watchAuthorize(page: Page): { status: number; url: URL }[] {
  const seen: { status: number; url: URL }[] = [];
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.pathname.endsWith('/protocol/openid-connect/auth')) seen.push({ status: r.status(), url });
  });
  return seen;
}

/** Every request the page made to the token endpoint, with its form. */
function watchTokenRequests(page: Page): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/protocol/openid-connect/token'))
      seen.push(new URLSearchParams(r.postData() ?? ''));
  });
  return seen;
}

/** Every navigation to the end-session endpoint. */
function watchLogout(page: Page): URL[] {
  const seen: URL[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.isNavigationRequest() && url.pathname.endsWith('/protocol/openid-connect/logout')) seen.push(url);
  });
  return seen;
}

/** axe-core over the page as it is; returns every violation (the test asserts on the serious and critical ones). */
async function axe(page: Page, name: string, report: Record<string, unknown>): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const { violations } = await page.evaluate(() => (globalThis as unknown as InPage).axe.run());
  report[name] = {
    url: page.url(),
    violations: violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.html) })),
  };
  return violations;
}
const severe = (violations: AxeViolation[]) =>
  violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.html).join(' | ')})`);

d('people sign in to browser apps: keycloak-js and oidc-client-ts, single sign-on, logout', () => {
  let server: Started;
  let boot: Record<string, string>;
  let issuer: string;
  let realmName: string;
  /** The keycloak-js app (client kc-app) and the oidc-client-ts app (client oidc-app), each on its own origin. */
  let kcApps: BrowserApps;
  let oidcApps: BrowserApps;
  let browser: Browser;
  let context: BrowserContext;
  let contexts: BrowserContext[];
  /** Requests the pages made anywhere but the apps and the platform. */
  let elsewhere: string[];
  const axeReport: Record<string, unknown> = {};

  const kc = () => kcApps.urls('kc');
  const oidc = () => oidcApps.urls('oidc');

  /** What /graphql says to `query { viewer { username } }` with this bearer token (asked from here, not from a page). */
  async function viewer(token: string) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'query { viewer { username } }' }),
    });
    const body = (await res.json().catch(() => undefined)) as any;
    return {
      status: res.status,
      username: (body?.data?.viewer?.username as string | undefined) ?? null,
      codes: ((body?.errors as any[] | undefined) ?? []).map((e) => e?.extensions?.code as string),
    };
  }
  /** The token no longer works at /graphql: no username, and a 401 or UNAUTHENTICATED. */
  async function expectRefused(token: string) {
    const seen = await viewer(token);
    expect(seen.username).toBeNull();
    expect(seen.status === 401 || seen.codes.includes('UNAUTHENTICATED')).toBe(true);
  }

  beforeAll(async () => {
    server = await startInTemp('all');
    boot = server.bootstrap!.values;
    issuer = `${server.url}/auth/api/v1/realms/${boot.realm}`;
    const realm = (await (await fetch(`${server.url}/auth/api/v1/realms/${boot.realm}`)).json()) as { name: string };
    realmName = realm.name;
    const common = { authServerUrl: `${server.url}/auth/api/v1`, issuer, graphqlUrl: `${server.url}/graphql` };
    kcApps = await startBrowserApps({ kc: { ...common, library: 'keycloak', realm: realmName, clientId: 'kc-app' } });
    oidcApps = await startBrowserApps({ oidc: { ...common, library: 'oidc', realm: boot.realm, clientId: 'oidc-app' } });
    const token = server.instances.token as unknown as TokenCore;
    await token.admin.createPublicClient({
      realm: boot.realm,
      clientId: 'kc-app',
      redirectUris: [kc().page],
      postLogoutRedirectUris: [kc().signedOut],
      webOrigins: [kcApps.origin],
    });
    await token.admin.createPublicClient({
      realm: boot.realm,
      clientId: 'oidc-app',
      redirectUris: [oidc().callback],
      postLogoutRedirectUris: [oidc().signedOut],
      webOrigins: [oidcApps.origin],
    });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    writeFileSync(AXE_REPORT, `${JSON.stringify(axeReport, null, 2)}\n`);
    await browser?.close();
    await kcApps?.close();
    await oidcApps?.close();
    await server?.stop();
  });
  /**
   * A browser of its own (no cookies, no storage), offline: a request anywhere but the apps and the
   * platform is refused and counted. `bypassCSP` for axe alone, which is injected as a script.
   */
  async function openContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    const opened = await browser.newContext(options);
    contexts.push(opened);
    opened.on('page', keepConsoleErrors);
    const allowed = [server.url, kcApps.origin, oidcApps.origin];
    await opened.route(
      (url) => url.protocol.startsWith('http') && !allowed.includes(url.origin),
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
    return opened;
  }
  beforeEach(async () => {
    elsewhere = [];
    contexts = [];
    context = await openContext();
  });
  afterEach(async () => {
    for (const c of contexts) await c.close();
    expect(elsewhere).toEqual([]);
  });

  it(
    'keycloak-js (login-required, PKCE S256): the login page, a wrong password told, signed in, /graphql with the token, refresh, logout',
    async () => {
      const page = await context.newPage();
      const authorize = watchAuthorize(page);
      const logouts = watchLogout(page);
      await page.goto(kc().page);
      // A wrong password first: the page says so, in an element announced to screen readers.
      await typeCredentials(page, boot.username, 'not the password');
      const alert = await loginError(page);
      expect(await alert.getAttribute('role')).toBe('alert');
      expect(await alert.innerText()).not.toBe('');
      await typeCredentials(page, boot.username, boot.password);
      expect(await appState(page)).toEqual({ state: 'signed-in', username: boot.username, error: '', url: kc().page });

      // The library asked for a code with PKCE S256, for its client and its exact redirect URI.
      expect(Object.fromEntries(authorize[0].url.searchParams)).toMatchObject({
        client_id: 'kc-app',
        redirect_uri: kc().page,
        response_type: 'code',
        response_mode: 'fragment',
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        scope: expect.stringMatching(/\bopenid\b/),
      });
      expect(authorize[0].url.pathname).toBe(`/auth/api/v1/realms/${realmName}/protocol/openid-connect/auth`);
      const first = await page.evaluate(() => (globalThis as unknown as InPage).app.token());
      const idToken = decodeJwt(await page.evaluate(() => (globalThis as unknown as InPage).app.idToken()));
      expect(idToken).toMatchObject({ iss: issuer, sid: expect.any(String), nonce: expect.any(String) });
      expect([idToken.aud].flat()).toEqual(['kc-app']);

      // updateToken(-1) refreshes whatever the token's age: a new token, which works at /graphql from the page.
      const refreshed = await page.evaluate(() => (globalThis as unknown as InPage).app.refresh());
      expect(refreshed).not.toBe(first);
      expect(await page.evaluate(() => (globalThis as unknown as InPage).app.whoami())).toBe(boot.username);
      expect(await viewer(refreshed)).toMatchObject({ status: 200, username: boot.username });

      // logout({ redirectUri }): the end-session endpoint with the ID token, back to the app's signed-out page.
      await page.locator('#sign-out').click();
      await page.waitForURL((url) => url.pathname === new URL(kc().signedOut).pathname, { timeout: 60_000 });
      expect(await appState(page)).toMatchObject({ state: 'signed-out', error: '' });
      expect(logouts).toHaveLength(1);
      expect(Object.fromEntries(logouts[0].searchParams)).toMatchObject({
        client_id: 'kc-app',
        post_logout_redirect_uri: kc().signedOut,
        id_token_hint: expect.any(String),
      });
      await expectRefused(refreshed);
      await expectRefused(first);
      // Signing in again asks for the password again.
      await page.goto(kc().page);
      await loginPage(page);
    },
    BROWSER_TEST_MS,
  );

  it(
    'oidc-client-ts (UserManager from the issuer): signinRedirect, the callback, /graphql, signinSilent with the refresh token, signoutRedirect',
    async () => {
      const page = await context.newPage();
      const authorize = watchAuthorize(page);
      const tokenRequests = watchTokenRequests(page);
      const logouts = watchLogout(page);
      await page.goto(oidc().page);
      await typeCredentials(page, boot.username, boot.password);
      expect(await appState(page)).toEqual({ state: 'signed-in', username: boot.username, error: '', url: oidc().page });

      expect(Object.fromEntries(authorize[0].url.searchParams)).toMatchObject({
        client_id: 'oidc-app',
        redirect_uri: oidc().callback,
        response_type: 'code',
        scope: 'openid',
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        state: expect.any(String),
      });
      expect(authorize[0].url.origin + authorize[0].url.pathname).toBe(`${issuer}/protocol/openid-connect/auth`);
      expect(tokenRequests.map((f) => f.get('grant_type'))).toEqual(['authorization_code']);
      expect(tokenRequests[0].get('code_verifier')).toEqual(expect.any(String));
      expect(tokenRequests[0].has('client_secret')).toBe(false);
      const first = await page.evaluate(() => (globalThis as unknown as InPage).app.token());
      const idToken = decodeJwt(await page.evaluate(() => (globalThis as unknown as InPage).app.idToken()));
      expect(idToken).toMatchObject({ iss: issuer, sid: expect.any(String) });
      expect([idToken.aud].flat()).toEqual(['oidc-app']);

      // signinSilent with a refresh token at hand refreshes with it: no iframe, no authorize request.
      const refreshed = await page.evaluate(() => (globalThis as unknown as InPage).app.refresh());
      expect(refreshed).not.toBe(first);
      expect(tokenRequests.map((f) => f.get('grant_type'))).toEqual(['authorization_code', 'refresh_token']);
      expect(authorize).toHaveLength(1);
      expect(await page.evaluate(() => (globalThis as unknown as InPage).app.whoami())).toBe(boot.username);

      // signoutRedirect: the end-session endpoint with the ID token and state; back with that state.
      await page.locator('#sign-out').click();
      await page.waitForURL((url) => url.pathname === new URL(oidc().signedOut).pathname, { timeout: 60_000 });
      expect(await appState(page)).toMatchObject({ state: 'signed-out', error: '' });
      expect(logouts).toHaveLength(1);
      const asked = Object.fromEntries(logouts[0].searchParams);
      expect(asked).toMatchObject({
        post_logout_redirect_uri: oidc().signedOut,
        id_token_hint: expect.any(String),
        state: expect.any(String),
      });
      expect(new URL(page.url()).searchParams.get('state')).toBe(asked.state);
      await expectRefused(refreshed);
      await expectRefused(first);
    },
    BROWSER_TEST_MS,
  );

  it(
    'single sign-on: signed in to the keycloak-js app, the oidc-client-ts app signs in with no login page; after logout from one, the other asks for the password',
    async () => {
      const first = await context.newPage();
      await first.goto(kc().page);
      await typeCredentials(first, boot.username, boot.password);
      expect(await appState(first)).toMatchObject({ state: 'signed-in', username: boot.username, error: '' });

      // Another app, another client, another origin, in the same browser: a code at once, no form.
      const second = await context.newPage();
      const authorize = watchAuthorize(second);
      await second.goto(oidc().page);
      expect(await appState(second, { noLoginPage: true })).toEqual({
        state: 'signed-in',
        username: boot.username,
        error: '',
        url: oidc().page,
      });
      expect(authorize.map((a) => a.status)).toEqual([302]);
      // One authentication: the ID tokens of both apps give its time.
      const authTimeOf = async (page: Page) =>
        decodeJwt(await page.evaluate(() => (globalThis as unknown as InPage).app.idToken())).auth_time;
      expect(await authTimeOf(second)).toEqual(await authTimeOf(first));
      expect(await authTimeOf(first)).toEqual(expect.any(Number));
      const secondToken = await second.evaluate(() => (globalThis as unknown as InPage).app.token());

      // Logout from the first ends the session everywhere: the second app's token is refused...
      await first.locator('#sign-out').click();
      await first.waitForURL((url) => url.pathname === new URL(kc().signedOut).pathname, { timeout: 60_000 });
      expect(await appState(first)).toMatchObject({ state: 'signed-out', error: '' });
      await expectRefused(secondToken);
      // ...and its next sign-in shows the login page.
      await second.locator('#sign-in').click();
      await second.waitForURL((url) => url.origin === server.url, { timeout: 60_000 });
      await loginPage(second);
      expect(authorize.map((a) => a.status)).toEqual([302, 200]);
      await typeCredentials(second, boot.username, boot.password);
      expect(await appState(second)).toMatchObject({ state: 'signed-in', username: boot.username, error: '' });
    },
    BROWSER_TEST_MS,
  );

  it(
    'axe on a phone: the login page (also with its error) and the logout confirmation page have no serious or critical violation, and fit the screen',
    async () => {
      // On a phone: 360 CSS pixels wide, touch.
      const page = await (
        await openContext({ bypassCSP: true, viewport: { width: 360, height: 640 }, isMobile: true, hasTouch: true })
      ).newPage();
      await page.goto(kc().page);
      await loginPage(page);
      expect(severe(await axe(page, 'login page', axeReport))).toEqual([]);
      // Usable on the phone: nothing wider than the screen, the button on it.
      const fits = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
        return d.documentElement.scrollWidth <= d.documentElement.clientWidth;
      });
      expect(fits).toBe(true);
      const button = await page.locator('#kc-login').boundingBox();
      expect(button && button.x >= 0 && button.x + button.width <= 360 && button.height >= 24).toBe(true);
      await typeCredentials(page, boot.username, 'not the password');
      await loginError(page);
      expect(severe(await axe(page, 'login page with an error', axeReport))).toEqual([]);
      await typeCredentials(page, boot.username, boot.password);
      expect(await appState(page)).toMatchObject({ state: 'signed-in', username: boot.username, error: '' });

      // Logout without id_token_hint asks the person first.
      const logout = new URL(`${issuer}/protocol/openid-connect/logout`);
      logout.search = new URLSearchParams({ client_id: 'kc-app', post_logout_redirect_uri: kc().signedOut }).toString();
      await page.goto(logout.href);
      const confirm = page.locator('#kc-logout');
      await confirm.waitFor({ timeout: 60_000 });
      expect(severe(await axe(page, 'logout confirmation page', axeReport))).toEqual([]);
      await confirm.click();
      await page.waitForURL((url) => url.pathname === new URL(kc().signedOut).pathname, { timeout: 60_000 });
      // The session is over: the app's next sign-in shows the login page.
      await page.goto(kc().page);
      await loginPage(page);
    },
    BROWSER_TEST_MS,
  );
});
