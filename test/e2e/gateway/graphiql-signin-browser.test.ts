import { createHash } from 'node:crypto';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { eventually } from '../../shared/wait';
import { ROOT, startInTemp, type Started } from '../shared/server';

/**
 * GraphiQL's sign-in bar in a real browser, against the token service's login page: the
 * authorization-code flow with PKCE (S256) as the public client `platform-console`, back at
 * /graphiql signed in, every operation (HTTP and graphql-ws) carrying the person's token unless an
 * Authorization was typed, the token renewed before it expires and after a reload, then signed out
 * through the end-session endpoint (the session and its tokens ended). axe-core finds no serious or
 * critical violation on the bar nor on the login page. The single-page app of examples/ signs in
 * from an origin of its own (CORS) the same way. Needs a Chromium: CHROMIUM_PATH (skipped otherwise).
 */
const d = CHROMIUM_PATH ? describe : describe.skip;

const AXE = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const TOKEN_PATH = '/auth/api/v1/realms/default/protocol/openid-connect/token';

/** What the page's code below touches of the browser (the project compiles without the DOM lib; types are erased). */
interface El {
  id: string;
  textContent: string | null;
  classList: { contains(name: string): boolean };
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
  CodeMirror?: { setValue(text: string): void; getValue(): string };
}
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}
interface InPage {
  document: El & { activeElement: El | null; body: { innerText: string } | null };
  sessionStorage: { getItem(key: string): string | null; length: number; key(i: number): string | null };
  getComputedStyle(el: El): { outlineStyle: string; outlineWidth: string };
  axe: { run(context: unknown, options: object): Promise<{ violations: Violation[] }> };
}

/** axe-core's serious and critical violations on the page, or on `selector` in it. */
async function axeFindings(page: Page, selector?: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(
    (sel) =>
      (globalThis as unknown as InPage).axe
        .run(sel ?? (globalThis as unknown as InPage).document, { resultTypes: ['violations'] })
        .then((r) => r.violations),
    selector,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * Sets GraphiQL's query editor to one operation and waits until GraphiQL parsed it (100 ms after
 * the change; until then its run button runs the document before, as a subscription or not): a
 * document of two operations first, whose parse shows as the run button's menu, then this one,
 * whose parse takes the menu away.
 */
async function setQuery(page: Page, text: string) {
  const set = (value: string) =>
    page.evaluate(
      (v) => (globalThis as unknown as InPage).document.querySelector('.graphiql-query-editor .CodeMirror')!.CodeMirror!.setValue(v),
      value,
    );
  await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor();
  await set('query One { __typename }\nquery Two { __typename }');
  await page.locator('.graphiql-execute-button[aria-haspopup]').waitFor();
  await set(text);
  await page.locator('.graphiql-execute-button:not([aria-haspopup])').waitFor();
}

/** Puts `headers` in GraphiQL's header pane. */
async function setHeaders(page: Page, headers: Record<string, string>) {
  await page.getByRole('button', { name: 'Headers' }).click();
  await page.evaluate((value) => {
    const editors = [...(globalThis as unknown as InPage).document.querySelectorAll('.graphiql-editor-tool .graphiql-editor')];
    editors
      .find((e) => !e.classList.contains('hidden'))!
      .querySelector('.CodeMirror')!
      .CodeMirror!.setValue(value);
  }, JSON.stringify(headers));
}

/**
 * Runs the operation in the editor once GraphiQL is not running another (its run button stops a
 * running one), and returns the response pane's JSON once a new text there matches `until`.
 */
async function run(page: Page, until: RegExp): Promise<any> {
  const pane = '.graphiql-response .CodeMirror';
  const text = () =>
    page.evaluate((sel) => (globalThis as unknown as InPage).document.querySelector(sel)?.CodeMirror?.getValue() ?? '', pane);
  await page.locator('.graphiql-execute-button[aria-label^="Execute"]').waitFor();
  const before = await text();
  await page.locator('.graphiql-execute-button').click();
  try {
    await page.waitForFunction(
      ([sel, source, old]) => {
        const now = (globalThis as unknown as InPage).document.querySelector(sel)?.CodeMirror?.getValue() ?? '';
        return now !== old && new RegExp(source).test(now);
      },
      [pane, until.source, before] as const,
      { timeout: 20_000 },
    );
  } catch (err) {
    throw new Error(`the response pane never showed ${until.source}: it shows ${await text()}`, { cause: err });
  }
  return JSON.parse(await text());
}

const status = (page: Page) => page.locator('#signin-status');

/** What went wrong in a page, as its console and uncaught errors said: shown when a wait fails. */
const problems = new WeakMap<Page, string[]>();
function listen(page: Page): Page {
  const said: string[] = [];
  problems.set(page, said);
  page.on('console', (m) => void (m.type() === 'error' || m.type() === 'warning' ? said.push(`${m.type()}: ${m.text()}`) : undefined));
  page.on('pageerror', (e) => void said.push(`uncaught: ${e.message}`));
  return page;
}

/** Waits until `selector` is on the page (the login form, say), telling what the page said when it never is. */
async function reaches(page: Page, selector: string): Promise<void> {
  try {
    await page.locator(selector).waitFor({ timeout: 20_000 });
  } catch (err) {
    const body = await page.evaluate(() => (globalThis as unknown as InPage).document.body?.innerText.slice(0, 1000)).catch(() => '');
    throw new Error(
      `${selector} never showed at ${page.url()}\nthe page says: ${body}\nthe browser said: ${(problems.get(page) ?? []).join('\n') || 'nothing'}`,
      { cause: err },
    );
  }
}

/** Waits until the element `selector` shows text matching `text` (the whole text, when a string), and returns it. */
async function shows(page: Page, selector: string, text: string | RegExp): Promise<string> {
  const source = typeof text === 'string' ? `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` : text.source;
  try {
    await page.waitForFunction(
      ([sel, re]) => new RegExp(re).test((globalThis as unknown as InPage).document.querySelector(sel)?.textContent ?? ''),
      [selector, source] as const,
      { timeout: 20_000 },
    );
  } catch (err) {
    const now = await page
      .evaluate((sel) => (globalThis as unknown as InPage).document.querySelector(sel)?.textContent, selector)
      .catch(() => '(no page)');
    const body = await page.evaluate(() => (globalThis as unknown as InPage).document.body?.innerText.slice(0, 1000)).catch(() => '');
    throw new Error(
      `${selector} never showed ${source}: it shows ${JSON.stringify(now)} at ${page.url()}\n` +
        `the page says: ${body}\nthe browser said: ${(problems.get(page) ?? []).join('\n') || 'nothing'}`,
      { cause: err },
    );
  }
  return (await page.locator(selector).textContent()) ?? '';
}

/** The sign-in flow's traffic as the browser sent it. */
interface Seen {
  documents: string[];
  tokenRequests: { form: URLSearchParams; status?: number; body?: any }[];
  graphql: { authorization?: string; query: string }[];
  socketFrames: string[];
}
function watch(page: Page, base: string): Seen {
  const seen: Seen = { documents: [], tokenRequests: [], graphql: [], socketFrames: [] };
  const asked = new Map<Request, Seen['tokenRequests'][number]>();
  page.on('request', (req) => {
    if (req.isNavigationRequest()) seen.documents.push(req.url());
    if (req.method() === 'POST' && req.url() === `${base}${TOKEN_PATH}`) {
      const entry = { form: new URLSearchParams(req.postData() ?? '') };
      asked.set(req, entry);
      seen.tokenRequests.push(entry);
    }
    if (req.method() === 'POST' && req.url() === `${base}/graphql`)
      seen.graphql.push({ authorization: req.headers().authorization, query: String(JSON.parse(req.postData() ?? '{}').query) });
  });
  page.on('response', async (res) => {
    const entry = asked.get(res.request());
    if (!entry) return;
    const body: unknown = await res.json().catch(() => undefined);
    Object.assign(entry, { body, status: res.status() });
  });
  page.on('websocket', (ws) => ws.on('framesent', (f) => seen.socketFrames.push(String(f.payload))));
  return seen;
}

d('GraphiQL signs a person in (authorization code with PKCE) in a browser', () => {
  let p: Started;
  let browser: Browser;
  let demo: Record<string, string>;

  beforeAll(async () => {
    p = await startInTemp('all');
    demo = p.bootstrap!.values;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await p?.stop();
  });

  /** A fresh browser profile (no sign-in cookie) that reaches nothing but the platform and `also`. */
  async function offlineContext(also: string[] = [], options: { bypassCSP?: boolean } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
    const allowed = [p.url, p.url.replace(/^http/, 'ws'), ...also];
    await context.route(
      (url) => !allowed.some((a) => url.href.startsWith(a)),
      (route) => route.abort(),
    );
    return context;
  }

  it('signs in with the button (keyboard), sends the token with every operation, renews it, keeps it across a reload, and signs out', async () => {
    const context = await offlineContext();
    const page = listen(await context.newPage());
    const seen = watch(page, p.url);
    // The page's clock, to be moved past the access token's lifetime (time flows as usual until then).
    await page.clock.install();
    try {
      await page.goto(`${p.url}/graphiql`);
      await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
      await expect(status(page).textContent()).resolves.toMatch(/^Not signed in/);
      expect(await status(page).getAttribute('aria-live')).toBe('polite');
      expect(await page.locator('#signout-button').isHidden()).toBe(true);
      expect(await axeFindings(page, '#signin-bar')).toEqual([]);

      // By keyboard: from the bar's text, Tab reaches the button, whose focus shows; Enter presses it.
      await status(page).click();
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const el = (globalThis as unknown as InPage).document.activeElement!;
        const style = (globalThis as unknown as InPage).getComputedStyle(el);
        return { id: el.id, outline: `${style.outlineStyle} ${style.outlineWidth}` };
      });
      expect(focus).toEqual({ id: 'signin-button', outline: 'solid 3px' });
      await page.keyboard.press('Enter');

      // The authorization request: the console client, PKCE S256 over the verifier kept in the tab.
      await page.waitForURL((u) => u.pathname.endsWith('/protocol/openid-connect/auth'));
      const authorize = new URL(page.url());
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${p.url}/auth/api/v1/realms/default/protocol/openid-connect/auth`);
      const q = Object.fromEntries(authorize.searchParams);
      expect(q).toMatchObject({
        response_type: 'code',
        client_id: 'platform-console',
        redirect_uri: `${p.url}/graphiql`,
        code_challenge_method: 'S256',
      });
      expect(q.scope.split(' ')).toContain('openid');
      expect(q.state).toMatch(/^[\w-]{22}$/);
      expect(q.nonce).toMatch(/^[\w-]{22}$/);
      const pending = JSON.parse(
        (await page.evaluate(() => (globalThis as unknown as InPage).sessionStorage.getItem('platform-signin:pending')))!,
      ) as Record<string, string>;
      expect(pending).toMatchObject({ state: q.state, nonce: q.nonce });
      expect(pending.verifier).toMatch(/^[\w-]{43}$/);
      expect(q.code_challenge).toBe(createHash('sha256').update(pending.verifier).digest('base64url'));

      // The login page, as the token service renders it, checked by axe in a page of its own.
      const axeContext = await offlineContext([], { bypassCSP: true });
      try {
        const loginPage = await axeContext.newPage();
        await loginPage.goto(authorize.href);
        await loginPage.locator('#kc-form-login').waitFor();
        expect(await axeFindings(loginPage)).toEqual([]);
      } finally {
        await axeContext.close();
      }

      await page.locator('#username').fill(demo.username);
      await page.locator('#password').fill(demo.password);
      await page.locator('#kc-login').click();

      // Back at /graphiql, signed in; the code and state are gone from the address.
      await shows(page, '#signin-status', new RegExp(`^Signed in as ${demo.username}\\b`));
      expect(page.url()).toBe(`${p.url}/graphiql`);
      const back = new URL(seen.documents.find((u) => u.startsWith(`${p.url}/graphiql?`))!);
      expect(back.searchParams.get('state')).toBe(q.state);
      expect(back.searchParams.get('code')).toBeTruthy();
      expect(await page.locator('#signin-button').isHidden()).toBe(true);
      expect(await page.locator('#signout-button').isVisible()).toBe(true);
      expect(await page.evaluate(() => (globalThis as unknown as InPage).sessionStorage.getItem('platform-signin:pending'))).toBeNull();
      expect(await axeFindings(page, '#signin-bar')).toEqual([]);
      const exchange = seen.tokenRequests[0];
      expect(Object.fromEntries(exchange.form)).toEqual({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code'),
        redirect_uri: `${p.url}/graphiql`,
        client_id: 'platform-console',
        code_verifier: pending.verifier,
      });
      expect(exchange.status).toBe(200);
      const first = exchange.body as { access_token: string; refresh_token: string; id_token: string; expires_in: number };
      expect(first.id_token).toBeTruthy();

      // Every operation carries the token: a query over HTTP...
      await setQuery(page, 'query { viewer { username } }');
      expect((await run(page, /"username"/)).data.viewer.username).toBe(demo.username);
      expect(seen.graphql.at(-1)).toEqual({ authorization: `Bearer ${first.access_token}`, query: 'query { viewer { username } }' });

      // ...and a subscription over graphql-ws, whose connection_init carries it with the typed api-key.
      await setQuery(page, 'subscription { answerStream(input: { query: "Why do glaciers retreat?" }) { answerSoFar finishReason } }');
      await setHeaders(page, { 'api-key': demo.api_key });
      const answered = await run(page, /"finishReason":\s*"STOP"/);
      expect(answered.errors).toBeUndefined();
      const init = seen.socketFrames
        .map((f) => JSON.parse(f) as { type: string; payload?: Record<string, string> })
        .find((m) => m.type === 'connection_init');
      expect(init?.payload).toEqual({ 'api-key': demo.api_key, Authorization: `Bearer ${first.access_token}` });

      // An Authorization typed in the header pane is sent instead, as typed.
      await setQuery(page, 'query { viewer { username } }');
      await setHeaders(page, { authorization: 'Bearer typed-by-hand' });
      await run(page, /"viewer"|"errors"/);
      expect(seen.graphql.at(-1)!.authorization).toBe('Bearer typed-by-hand');
      await setHeaders(page, {});

      // Renewed before it expires: the page's clock moved past the token's lifetime.
      await page.clock.fastForward(first.expires_in * 1000);
      await eventually(() => seen.tokenRequests.some((t) => t.form.get('grant_type') === 'refresh_token' && t.status !== undefined));
      const renewal = seen.tokenRequests.find((t) => t.form.get('grant_type') === 'refresh_token')!;
      expect(Object.fromEntries(renewal.form)).toEqual({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: 'platform-console',
      });
      expect(renewal.status).toBe(200);
      const renewed = renewal.body as { access_token: string };
      expect(renewed.access_token).not.toBe(first.access_token);
      expect((await run(page, /"username"/)).data.viewer.username).toBe(demo.username);
      expect(seen.graphql.at(-1)!.authorization).toBe(`Bearer ${renewed.access_token}`);

      // A reload keeps the sign-in (the refresh token is in the tab's sessionStorage), renewing the access token.
      const grants = seen.tokenRequests.length;
      await page.reload();
      await shows(page, '#signin-status', new RegExp(`^Signed in as ${demo.username}\\b`));
      expect(seen.tokenRequests.length).toBe(grants + 1);
      expect(seen.tokenRequests.at(-1)!.form.get('grant_type')).toBe('refresh_token');
      const current = (seen.tokenRequests.at(-1)!.body as { access_token: string; id_token?: string }).access_token;
      await setQuery(page, 'query { viewer { username } }');
      expect((await run(page, /"username"/)).data.viewer.username).toBe(demo.username);
      expect(seen.graphql.at(-1)!.authorization).toBe(`Bearer ${current}`);

      // Sign out: the end-session endpoint with the ID token as hint, and back to GraphiQL.
      const before = seen.documents.length;
      await page.locator('#signout-button').click();
      await shows(page, '#signin-status', 'Signed out.');
      expect(page.url()).toBe(`${p.url}/graphiql`);
      const logout = new URL(seen.documents.slice(before).find((u) => u.includes('/protocol/openid-connect/logout'))!);
      expect(`${logout.origin}${logout.pathname}`).toBe(`${p.url}/auth/api/v1/realms/default/protocol/openid-connect/logout`);
      expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${p.url}/graphiql`);
      expect(logout.searchParams.get('client_id')).toBe('platform-console');
      expect(logout.searchParams.get('id_token_hint')).toMatch(/^ey/);
      expect(await page.locator('#signin-button').isVisible()).toBe(true);
      const stored = await page.evaluate(() =>
        Array.from({ length: (globalThis as unknown as InPage).sessionStorage.length }, (_, i) =>
          (globalThis as unknown as InPage).sessionStorage.key(i),
        ),
      );
      expect(stored.filter((k) => k?.startsWith('platform-signin:'))).toEqual([]);

      // The session and its tokens ended: the access token introspects inactive, the refresh token is refused...
      const introspected = await fetch(`${p.url}/auth/api/v1/oauth/connect/introspect`, {
        method: 'POST',
        body: new URLSearchParams({ realm: demo.realm, token: current }),
      });
      // The spec's introspection path answers `active` as a string (docs/tour-token.md).
      expect(await introspected.json()).toMatchObject({ active: 'false' });
      const latestRefresh = [...seen.tokenRequests].reverse().find((t) => (t.body as { refresh_token?: string })?.refresh_token)!.body
        .refresh_token as string;
      const refused = await fetch(`${p.url}${TOKEN_PATH}`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: latestRefresh, client_id: 'platform-console' }),
      });
      expect(refused.status).toBe(400);
      // ...and signing in again asks for the password (no single sign-on left).
      await page.locator('#signin-button').click();
      await reaches(page, '#kc-form-login');
    } finally {
      await context.close();
    }
  }, 180_000);

  it('ignores an answer to a sign-in it did not start (state): no code reaches the token endpoint', async () => {
    const context = await offlineContext();
    const page = listen(await context.newPage());
    const seen = watch(page, p.url);
    try {
      await page.goto(`${p.url}/graphiql?code=forged-code&state=forged-state`);
      await shows(page, '#signin-status', /^Sign-in failed: the answer does not match a sign-in started in this tab \(state\)/);
      expect(page.url()).toBe(`${p.url}/graphiql`);
      expect(seen.tokenRequests).toEqual([]);
      expect(await page.locator('#signin-button').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("the README's single-page app (examples/spa-sign-in.html) signs in from its own origin, asks the graph who signed in, and signs out", async () => {
    // The example served as a static file on an origin of its own, told where the platform is.
    const html = readFileSync(join(ROOT, 'examples', 'spa-sign-in.html'), 'utf8');
    expect(html).toContain("const PLATFORM = 'http://127.0.0.1:8080';");
    const served = html.replace("const PLATFORM = 'http://127.0.0.1:8080';", `const PLATFORM = '${p.url}';`);
    const server: Server = createServer((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/spa-sign-in.html') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(served);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const app = `${origin}/spa-sign-in.html`;
    const token = p.instances.token as unknown as TokenCore;
    await token.admin.createPublicClient({
      clientId: 'spa-example',
      redirectUris: [app],
      postLogoutRedirectUris: [app],
      webOrigins: [origin],
    });
    // CORS reads the registered origins again at most once a second: the app is served once the new one is allowed.
    await eventually(async () => {
      const preflight = await fetch(`${p.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      return preflight.headers.get('access-control-allow-origin') === origin;
    });
    const context = await offlineContext([origin]);
    try {
      const page = listen(await context.newPage());
      await page.goto(app);
      await shows(page, '#status', 'Not signed in.');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await reaches(page, '#kc-form-login');
      await page.locator('#username').fill(demo.username);
      await page.locator('#password').fill(demo.password);
      await page.locator('#kc-login').click();
      await shows(page, '#status', `Signed in as ${demo.username}.`);
      expect(page.url()).toBe(app);
      await page.getByRole('button', { name: 'Ask the graph who I am' }).click();
      await shows(page, '#answer', new RegExp(`"username": "${demo.username}"`));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await shows(page, '#status', 'Signed out.');
      expect(page.url()).toBe(app);
    } finally {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
