import { decodeJwt } from 'jose';
import type request from 'supertest';
import {
  ALICE,
  active,
  actionPath,
  authorize,
  BASE,
  Browser,
  CSRF,
  cookiesSet,
  exchange,
  issuerOf,
  loginForm,
  pkce,
  PUBLIC_URL,
  redirected,
  refresh,
  signIn,
  signInFixture,
  spaParams,
  SPA,
  SPA2,
  SSO_PREFIX,
  ssoWorks,
  submitLogin,
  tokenAt,
  WEB,
  type SignInFixture,
} from './sign-in-helpers';

/** An HTML error page: its status, no redirect, no session cookie, nothing cacheable. */
function expectErrorPage(res: request.Response, status: number | number[] = 400) {
  expect(Array.isArray(status) ? status : [status]).toContain(res.status);
  expect(res.headers.location).toBeUndefined();
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toMatch(/<p role="alert">/);
  expect(cookiesSet(res).filter((c) => c.startsWith(SSO_PREFIX))).toEqual([]);
}

const logoutPath = (realm: string) => `${BASE}/realms/${realm}/protocol/openid-connect/logout`;

/** Redirect URIs that are not exactly the SPA's registered https://app.example/callback. */
const NOT_REGISTERED = [
  'https://evil.example/callback',
  'https://app.example/call',
  'https://app.example/',
  'https://app.example',
  'https://app.example/callback/',
  'https://app.example/callback/../evil',
  'https://app.example/callbackx',
  'https://app.example/callback?next=https://evil.example',
  'https://app.example/callback#frag',
  'https://app.example/callback.evil.example',
  'https://app.example.evil.example/callback',
  'https://app.example@evil.example/callback',
  'https://evil.example\\@app.example/callback',
  'https://evil.example/?https://app.example/callback',
  'https://app.example/%63allback',
  'https://app.example/callback%2F..%2Fevil',
  'https%3A%2F%2Fapp.example%2Fcallback',
  'https://app.example/callback%00',
  'https://app.example/callback%20',
  'https://app.example/callback ',
  ' https://app.example/callback',
  'https://APP.EXAMPLE/callback',
  'https://App.Example/callback',
  'HTTPS://app.example/callback',
  'https://app.example:443/callback',
  'http://app.example/callback',
  '//evil.example/callback',
  '//app.example/callback',
  '/callback',
  'javascript:alert(document.domain)//https://app.example/callback',
  'JavaScript://app.example/callback%0aalert(1)',
  'data:text/html,<script>alert(1)</script>',
];

describe('sign-in attacks', () => {
  let f: SignInFixture;
  beforeEach(async () => {
    f = await signInFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  describe('open redirects', () => {
    it('answers every redirect_uri but the registered one with a 400 HTML page and no Location', async () => {
      for (const uri of NOT_REGISTERED) {
        const res = await authorize(f, new Browser(), spaParams({ redirect_uri: uri }));
        try {
          expectErrorPage(res);
        } catch (err) {
          throw new Error(`redirect_uri ${JSON.stringify(uri)}: ${String(err)}`, { cause: err });
        }
        expect(res.text).toContain('redirect_uri');
      }
      // The same by POST, and with errors the app would otherwise be told about (prompt=none, a bad response_type).
      for (const uri of ['https://evil.example/callback', '//evil.example']) {
        expectErrorPage(await authorize(f, new Browser(), spaParams({ redirect_uri: uri }), f.realm, 'post'));
        expectErrorPage(await authorize(f, new Browser(), spaParams({ redirect_uri: uri, prompt: 'none' })));
        expectErrorPage(await authorize(f, new Browser(), spaParams({ redirect_uri: uri, response_type: 'token' })));
      }
      // The registered one itself works.
      expect((await authorize(f, new Browser(), spaParams())).status).toBe(200);
    });

    it('refuses an unknown or missing client, a missing redirect_uri, and another client’s URI, with no redirect', async () => {
      expectErrorPage(await authorize(f, new Browser(), spaParams({ client_id: 'nobody' })));
      expectErrorPage(await authorize(f, new Browser(), spaParams({ client_id: undefined })));
      expectErrorPage(await authorize(f, new Browser(), spaParams({ redirect_uri: undefined })));
      expectErrorPage(await authorize(f, new Browser(), spaParams({ redirect_uri: SPA2.redirectUri })));
      // A disabled client's registered URI is no longer trusted.
      await f.core.admin.setClientEnabled(f.realm, SPA.clientId, false);
      expectErrorPage(await authorize(f, new Browser(), spaParams()));
    });

    it('refuses relative paths and look-alikes of the console client’s registered PUBLIC_URL paths', async () => {
      const console = (uri: string) => spaParams({ client_id: 'platform-console', redirect_uri: uri });
      expect((await authorize(f, new Browser(), console(`${PUBLIC_URL}/graphiql`))).status).toBe(200);
      for (const uri of [
        '/graphiql',
        `${PUBLIC_URL}.evil.example/graphiql`,
        `${PUBLIC_URL}/graphiql/../x`,
        `${PUBLIC_URL}//graphiql`,
        `https://platform.test/graphiql`,
      ])
        expectErrorPage(await authorize(f, new Browser(), console(uri)));
    });

    it("a Host header naming another site does not make that site's paths the console client's registered URIs", async () => {
      // The console client registers paths (/graphiql); they are on PUBLIC_URL, not on whatever host a request names.
      const b = new Browser();
      await signIn(f, b);
      for (const host of ['evil.example', 'platform.test.evil.example']) {
        const res = await f
          .http()
          .get(`${BASE}/realms/${f.realm}/protocol/openid-connect/auth`)
          .query(spaParams({ client_id: 'platform-console', redirect_uri: `http://${host}/graphiql` }))
          .set('Host', host)
          .set('Cookie', b.header());
        expectErrorPage(res);
      }
    });

    it('logout: every unregistered post_logout_redirect_uri is an error page, and nothing is ended', async () => {
      const b = new Browser();
      const { code, verifier } = await signIn(f, b);
      const tokens = await exchange(f, code, verifier);
      for (const uri of [...NOT_REGISTERED.map((u) => u.replace('/callback', '/signed-out')), SPA.redirectUri, SPA2.postLogout]) {
        for (const query of [
          { id_token_hint: tokens.body.id_token, post_logout_redirect_uri: uri, state: 's' },
          { client_id: SPA.clientId, post_logout_redirect_uri: uri },
        ]) {
          const res = b.take(await f.http().get(logoutPath(f.realm)).query(query).set('Cookie', b.header()));
          try {
            expectErrorPage(res);
          } catch (err) {
            throw new Error(`post_logout_redirect_uri ${JSON.stringify(uri)}: ${String(err)}`, { cause: err });
          }
        }
      }
      // Without a client to check it against, a URI is refused too.
      expectErrorPage(await f.http().get(logoutPath(f.realm)).query({ post_logout_redirect_uri: SPA.postLogout }));
      // client_id that differs from the hint's audience.
      expectErrorPage(
        await f
          .http()
          .get(logoutPath(f.realm))
          .query({ id_token_hint: tokens.body.id_token, client_id: SPA2.clientId, post_logout_redirect_uri: SPA2.postLogout }),
      );
      expect(await active(f, tokens.body.access_token)).toBe(true);
      expect(await ssoWorks(f, b)).toBe(true);
    });
  });

  describe('authorization codes', () => {
    it('a second exchange is invalid_grant and ends what the first gave (access inactive, refresh refused)', async () => {
      const { code, verifier } = await signIn(f, new Browser());
      const first = await exchange(f, code, verifier);
      expect(first.status).toBe(200);
      expect(await active(f, first.body.access_token)).toBe(true);
      const second = await exchange(f, code, verifier);
      expect(second.status).toBe(400);
      expect(second.body.error).toBe('invalid_grant');
      expect(await active(f, first.body.access_token)).toBe(false);
      const r = await refresh(f, first.body.refresh_token);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    });

    it('20 parallel exchanges of one code: at most one gets tokens, the rest invalid_grant, and no token stays active', async () => {
      // RFC 6749 §4.1.2: a code used twice revokes what it gave. Racing exchanges end in one of two safe ways: the
      // first finished before the others (its tokens then revoked by them), or it saw a reuse and refused itself.
      for (let round = 0; round < 3; round++) {
        const { code, verifier } = await signIn(f, new Browser(), { prompt: 'login' });
        const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(f, code, verifier)));
        expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(1);
        for (const a of answers.filter((x) => x.status !== 200)) {
          expect(a.status).toBe(400);
          expect(a.body.error).toBe('invalid_grant');
        }
        for (const a of answers.filter((x) => x.status === 200)) {
          expect(await active(f, a.body.access_token)).toBe(false);
          expect((await refresh(f, a.body.refresh_token)).status).toBe(400);
        }
      }
    });

    it('exchanges of one code, one after another: exactly one 200 (the first), then invalid_grant', async () => {
      const { code, verifier } = await signIn(f, new Browser());
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await exchange(f, code, verifier)).status);
      expect(statuses).toEqual([200, 400, 400, 400, 400]);
    });

    it('a code lives 60 s: at 59 s it works, at 61 s it is invalid_grant', async () => {
      const one = await signIn(f, new Browser());
      f.clock.advance(59_000);
      expect((await exchange(f, one.code, one.verifier)).status).toBe(200);
      const two = await signIn(f, new Browser());
      f.clock.advance(61_000);
      const late = await exchange(f, two.code, two.verifier);
      expect(late.status).toBe(400);
      expect(late.body.error).toBe('invalid_grant');
    });

    it('is bound to its client, its redirect_uri and its realm', async () => {
      const b = new Browser();
      const a = await signIn(f, b);
      const other = await exchange(f, a.code, a.verifier, { client_id: SPA2.clientId, redirect_uri: SPA2.redirectUri });
      expect(other.status).toBe(400);
      expect(other.body.error).toBe('invalid_grant');
      // The attempt burned the code: its owner cannot use it either now (no tokens for a stolen code).
      expect((await exchange(f, a.code, a.verifier)).status).toBe(400);

      const c = await signIn(f, b, { prompt: 'login' });
      const wrongUri = await exchange(f, c.code, c.verifier, { redirect_uri: 'https://app.example/callback?x=1' });
      expect(wrongUri.status).toBe(400);
      expect(wrongUri.body.error).toBe('invalid_grant');

      const d = await signIn(f, b, { prompt: 'login' });
      const otherRealm = await tokenAt(
        f,
        {
          grant_type: 'authorization_code',
          code: d.code,
          redirect_uri: SPA.redirectUri,
          client_id: SPA.clientId,
          code_verifier: d.verifier,
        },
        f.otherRealm,
      );
      expect(otherRealm.status).toBe(400);
      expect(otherRealm.body.error).toBe('invalid_grant');

      // The confidential client cannot redeem a public client's code with its secret either.
      const e = await signIn(f, b, { prompt: 'login' });
      const web = await exchange(f, e.code, e.verifier, { client_id: WEB.clientId, client_secret: f.webSecret });
      expect(web.status).toBe(400);
      expect(web.body.error).toBe('invalid_grant');
    });

    it('an unknown or made-up code is invalid_grant', async () => {
      for (const code of ['x', 'A'.repeat(43), '']) {
        const res = await exchange(f, code, pkce().verifier);
        expect(res.status).toBe(400);
        expect(['invalid_grant', 'invalid_request']).toContain(res.body.error);
      }
    });
  });

  describe('PKCE', () => {
    const appError = (res: request.Response) => Object.fromEntries(redirected(res).params);

    it('a public client without code_challenge, with method plain, or a malformed challenge: redirect with error=invalid_request', async () => {
      const p = pkce();
      for (const over of [
        { code_challenge: undefined, code_challenge_method: undefined },
        { code_challenge: undefined },
        { code_challenge_method: 'plain', code_challenge: p.verifier },
        { code_challenge_method: 'plain' },
        { code_challenge_method: undefined },
        { code_challenge_method: 's256' },
        { code_challenge: 'short' },
        { code_challenge: '+'.repeat(43) },
      ]) {
        const res = await authorize(f, new Browser(), spaParams({ ...over, state: 'pk' }, p.challenge));
        expect(redirected(res).to).toBe(SPA.redirectUri);
        expect(appError(res)).toMatchObject({ error: 'invalid_request', state: 'pk', iss: issuerOf(f.realm) });
        expect(appError(res).code).toBeUndefined();
      }
      expect(f.writes.codes).toBe(0);
    });

    it('a missing, wrong or malformed verifier is invalid_grant', async () => {
      const b = new Browser();
      for (const verifier of [undefined, pkce().verifier, 'short', 'x'.repeat(129)]) {
        const a = await signIn(f, b, { prompt: 'login' });
        const res = await exchange(f, a.code, verifier);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_grant');
      }
    });

    it('a verifier for a code given without a challenge (confidential client) is invalid_grant (PKCE downgrade)', async () => {
      const b = new Browser();
      const run = async (verifier?: string) => {
        const page = await authorize(f, b, {
          response_type: 'code',
          client_id: WEB.clientId,
          redirect_uri: WEB.redirectUri,
          scope: 'openid',
          prompt: 'login',
        });
        const code = redirected(await submitLogin(f, b, loginForm(page))).params.get('code')!;
        return tokenAt(f, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: WEB.redirectUri,
          client_id: WEB.clientId,
          client_secret: f.webSecret,
          ...(verifier ? { code_verifier: verifier } : {}),
        });
      };
      const downgraded = await run(pkce().verifier);
      expect(downgraded.status).toBe(400);
      expect(downgraded.body.error).toBe('invalid_grant');
      expect((await run()).status).toBe(200);
    });
  });

  describe('state and nonce', () => {
    const STATE = 'a&b=c#d?e/f é 😀 +%20 <x>"\'';
    it('echoes state exactly in the query and in the fragment, on success and on error', async () => {
      for (const mode of ['query', 'fragment']) {
        const b = new Browser();
        const { back } = await signIn(f, b, { state: STATE, response_mode: mode });
        expect(back.mode).toBe(mode);
        expect(back.params.get('state')).toBe(STATE);
        const sso = redirected(await authorize(f, b, spaParams({ state: STATE, response_mode: mode })));
        expect(sso.params.get('state')).toBe(STATE);
        const err = redirected(await authorize(f, new Browser(), spaParams({ state: STATE, response_mode: mode, prompt: 'none' })));
        expect(err.mode).toBe(mode);
        expect(err.params.get('state')).toBe(STATE);
        expect(err.params.get('error')).toBe('login_required');
      }
    });

    it('puts the nonce in the ID token exactly, and a request without one gets none', async () => {
      const nonce = 'n&=#é😀';
      const a = await signIn(f, new Browser(), { nonce });
      expect(decodeJwt((await exchange(f, a.code, a.verifier)).body.id_token).nonce).toBe(nonce);
      const b = await signIn(f, new Browser(), { nonce: undefined });
      expect(decodeJwt((await exchange(f, b.code, b.verifier)).body.id_token).nonce).toBeUndefined();
    });

    it('a login form posted again after the sign-in (the same signed request) does not sign in a second time', async () => {
      const b = new Browser();
      const page = await authorize(f, b, spaParams());
      const form = loginForm(page);
      const csrfBefore = b.cookies.get(CSRF);
      const done = await submitLogin(f, b, form);
      expect(redirected(done).params.has('code')).toBe(true);
      expect(b.cookies.get(CSRF)).toBeDefined();
      expect(b.cookies.get(CSRF)).not.toBe(csrfBefore);
      const writes = { ...f.writes };
      // The browser's back button and "resubmit": the old page is refused with its new cookie.
      const replay = await submitLogin(f, b, form);
      expectErrorPage(replay);
      expect(f.writes).toEqual(writes);
    });
  });

  describe('login CSRF', () => {
    it('refuses the form posted without the anti-forgery cookie, with another browser’s, or from another site', async () => {
      const victim = new Browser();
      const form = loginForm(await authorize(f, victim, spaParams()));
      const attacker = new Browser();
      loginForm(await authorize(f, attacker, spaParams()));
      const before = { ...f.writes };

      const noCookie = new Browser();
      expectErrorPage(await submitLogin(f, noCookie, form));
      const otherCookie = new Browser();
      otherCookie.cookies.set(CSRF, attacker.cookies.get(CSRF)!);
      expectErrorPage(await submitLogin(f, otherCookie, form));
      // The attacker's own request with the victim's cookie (a page the attacker fetched, posted by the victim's browser).
      const attackerForm = loginForm(await authorize(f, attacker, spaParams()));
      expectErrorPage(await submitLogin(f, victim, attackerForm));
      for (const origin of ['https://evil.example', 'null', 'http://platform.test.evil.example', 'https://platform.test'])
        expectErrorPage(await submitLogin(f, victim, form, ALICE, { Origin: origin }), 403);
      // A request of one realm posted to another's form.
      const wrongRealm = { ...form, action: actionPath(form.action).replace(f.realm, f.otherRealm) };
      expectErrorPage(await submitLogin(f, victim, wrongRealm));
      expect(f.writes).toEqual(before);
      // The victim's own page still works afterwards.
      expect(redirected(await submitLogin(f, victim, form)).params.has('code')).toBe(true);
    });

    it('a tampered signed request is refused', async () => {
      const b = new Browser();
      const form = loginForm(await authorize(f, b, spaParams()));
      const [h, p, s] = form.request.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const evil = Buffer.from(JSON.stringify({ ...claims, r: 'https://evil.example/callback' })).toString('base64url');
      expectErrorPage(await submitLogin(f, b, { ...form, request: `${h}.${evil}.${s}` }));
      expectErrorPage(await submitLogin(f, b, { ...form, request: `${h}.${p}.` }));
      const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
      expectErrorPage(await submitLogin(f, b, { ...form, request: `${none}.${evil}.` }));
    });

    it('an expired login page (30 minutes) is refused', async () => {
      const b = new Browser();
      const form = loginForm(await authorize(f, b, spaParams()));
      f.clock.advance(31 * 60_000);
      expectErrorPage(await submitLogin(f, b, form));
    });
  });

  describe('clickjacking and script', () => {
    it('every page forbids framing, and carries no script', async () => {
      const b = new Browser();
      const pages = [
        await authorize(f, b, spaParams()),
        await authorize(f, new Browser(), spaParams({ redirect_uri: 'https://evil.example/' })),
      ];
      await signIn(f, b, { prompt: 'login' });
      pages.push(b.take(await f.http().get(logoutPath(f.realm)).set('Cookie', b.header())));
      pages.push(await f.http().get(`${BASE}/realms/no-such-realm/protocol/openid-connect/auth`).query(spaParams()));
      expect(pages.map((p) => p.status)).toEqual([200, 400, 200, 404]);
      for (const page of pages) {
        const csp = String(page.headers['content-security-policy']);
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("default-src 'none'");
        expect(csp).not.toMatch(/script-src/);
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.text).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
      }
    });
  });

  describe('session fixation', () => {
    it('an SSO cookie value planted before the sign-in is not the one after it', async () => {
      const b = new Browser();
      const planted = 'attacker-chosen-value-0123456789abcdefghijk';
      b.cookies.set(SSO_PREFIX + f.realm, planted);
      // The planted value signs nobody in.
      expect(redirected(await authorize(f, b, spaParams({ prompt: 'none' }))).params.get('error')).toBe('login_required');
      await signIn(f, b);
      expect(b.sso(f.realm)).toBeDefined();
      expect(b.sso(f.realm)).not.toBe(planted);
    });

    it("one realm's SSO cookie value signs nobody in at another realm", async () => {
      const b = new Browser();
      await signIn(f, b);
      const moved = new Browser();
      moved.cookies.set(SSO_PREFIX + f.otherRealm, b.sso(f.realm)!);
      const res = await f
        .http()
        .get(`${BASE}/realms/${f.otherRealm}/protocol/openid-connect/auth`)
        .query(spaParams({ prompt: 'none' }))
        .set('Cookie', moved.header());
      expect(redirected(res).params.get('error')).toBe('login_required');
    });

    it("a real session planted in the victim's browser is ended when the victim signs in", async () => {
      await f.core.admin.createUser({ realm: f.realm, username: 'mallory', password: 'mallory password 1' });
      const mallory = new Browser();
      const page = await authorize(f, mallory, spaParams());
      redirected(await submitLogin(f, mallory, loginForm(page), { username: 'mallory', password: 'mallory password 1' }));
      const planted = mallory.sso(f.realm)!;
      const victim = new Browser();
      victim.cookies.set(SSO_PREFIX + f.realm, planted);
      const a = await signIn(f, victim, { prompt: 'login' });
      expect(victim.sso(f.realm)).not.toBe(planted);
      const tokens = await exchange(f, a.code, a.verifier);
      expect(decodeJwt(tokens.body.access_token).preferred_username).toBe('alice');
      expect(await ssoWorks(f, mallory)).toBe(false);
      expect(await ssoWorks(f, victim)).toBe(true);
    });
  });

  describe('throttle and lockout on the form', () => {
    it('after LOCKOUT_THRESHOLD wrong passwords the right one gets the same message from that source; another source signs in', async () => {
      await f.close();
      f = await signInFixture({ lockout: { threshold: 3, seconds: 900 }, trustProxy: ['loopback'] });
      const b = new Browser({ 'X-Forwarded-For': '203.0.113.10' });
      let page = await authorize(f, b, spaParams());
      for (let i = 0; i < 3; i++) {
        page = await submitLogin(f, b, loginForm(page), { username: 'alice', password: `wrong ${i}` });
        expect(page.status).toBe(401);
        expect(page.text).toContain('Invalid username or password.');
      }
      const locked = await submitLogin(f, b, loginForm(page), ALICE);
      expect(locked.status).toBe(401);
      expect(locked.text).toContain('<p id="input-error" class="error" role="alert">Invalid username or password.</p>');
      expect(b.sso(f.realm)).toBeUndefined();
      expect(f.writes.browserSessions).toBe(0);

      const elsewhere = new Browser({ 'X-Forwarded-For': '198.51.100.20' });
      expect(redirected(await submitLogin(f, elsewhere, loginForm(await authorize(f, elsewhere, spaParams())))).params.has('code')).toBe(
        true,
      );
    });

    it('AUTH_FAILURES_PER_MINUTE: past it a 429 page with its message, even for the right password; a minute later it works', async () => {
      await f.close();
      f = await signInFixture({ authFailuresPerMinute: 2 });
      const b = new Browser();
      let page = await authorize(f, b, spaParams());
      for (let i = 0; i < 2; i++) page = await submitLogin(f, b, loginForm(page), { username: 'alice', password: `wrong ${i}` });
      const slowed = await submitLogin(f, b, loginForm(page), ALICE);
      expect(slowed.status).toBe(429);
      expect(slowed.text).toContain(
        '<p id="input-error" class="error" role="alert">Too many failed sign-ins. Wait a minute, then try again.</p>',
      );
      expect(slowed.headers.location).toBeUndefined();
      expect(b.sso(f.realm)).toBeUndefined();
      f.clock.advance(61_000);
      expect(redirected(await submitLogin(f, b, loginForm(slowed), ALICE)).params.has('code')).toBe(true);
    });

    it('an unknown user and a wrong password give the same page (but for the signed request and the style nonce), as the token endpoint does', async () => {
      const b = new Browser();
      const form = loginForm(await authorize(f, b, spaParams({ state: 'same', nonce: 'same' })));
      const normal = (res: request.Response) => ({
        status: res.status,
        html: res.text
          .replace(/name="request" value="[^"]+"/, 'name="request" value=""')
          .replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-')
          .replace(/nonce="[^"]+"/g, 'nonce=""'),
      });
      const unknown = normal(await submitLogin(f, b, form, { username: 'zz-no-such', password: 'whatever pass' }));
      const wrong = normal(await submitLogin(f, b, form, { username: 'alice', password: 'whatever pass' }));
      expect(unknown.status).toBe(401);
      expect(wrong).toEqual({ status: unknown.status, html: unknown.html.replace('value="zz-no-such"', 'value="alice"') });
      const pw = (username: string) => tokenAt(f, { grant_type: 'password', client_id: SPA.clientId, username, password: 'whatever pass' });
      const [u, w] = [await pw('zz-no-such'), await pw('alice')];
      expect(u.status).toBe(w.status);
      expect(u.body).toEqual(w.body);
    });
  });

  describe('floods and oversized requests', () => {
    it('300 parallel authorize requests all get the form, and write no code nor browser session', async () => {
      const answers = await Promise.all(Array.from({ length: 300 }, () => authorize(f, new Browser(), spaParams())));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      for (const a of answers) loginForm(a);
      expect(f.writes).toEqual({ codes: 0, browserSessions: 0 });
      // Nor do wrong passwords.
      const b = new Browser();
      await submitLogin(f, b, loginForm(await authorize(f, b, spaParams())), { username: 'alice', password: 'wrong' });
      expect(f.writes).toEqual({ codes: 0, browserSessions: 0 });
    });

    it('very long or repeated parameters get a 400 page (or 413/414/431), never a 500 nor a redirect', async () => {
      const big = (n: number) => 'x'.repeat(n);
      const cases: Array<() => Promise<request.Response>> = [
        () => authorize(f, new Browser(), spaParams({ state: big(100_000) })),
        () => authorize(f, new Browser(), spaParams({ state: big(100_000) }), f.realm, 'post'),
        () => authorize(f, new Browser(), spaParams({ redirect_uri: SPA.redirectUri + big(50_000) })),
        () => authorize(f, new Browser(), spaParams({ redirect_uri: SPA.redirectUri + big(50_000) }), f.realm, 'post'),
        () => authorize(f, new Browser(), spaParams({ state: big(2_001) })),
        () => authorize(f, new Browser(), spaParams({ nonce: big(10_000) }), f.realm, 'post'),
        () => authorize(f, new Browser(), spaParams({ login_hint: big(10_000) }), f.realm, 'post'),
        () => authorize(f, new Browser(), spaParams({ client_id: big(10_000) }), f.realm, 'post'),
        () =>
          f
            .http()
            .get(
              `${BASE}/realms/${f.realm}/protocol/openid-connect/auth?${new URLSearchParams(spaParams()).toString()}&${'state=a&'.repeat(5000)}`,
            ),
        () =>
          f
            .http()
            .get(
              `${BASE}/realms/${f.realm}/protocol/openid-connect/auth?${new URLSearchParams(spaParams()).toString()}&${'state=a&'.repeat(1500)}`,
            ),
        () =>
          f
            .http()
            .post(`${BASE}/realms/${f.realm}/protocol/openid-connect/auth`)
            .type('form')
            .send(`${new URLSearchParams(spaParams()).toString()}&${'state=a&'.repeat(5000)}`),
        () =>
          f
            .http()
            .get(`${BASE}/realms/${f.realm}/protocol/openid-connect/auth?${new URLSearchParams(spaParams()).toString()}&state=a&state=b`),
        () =>
          f
            .http()
            .get(`${BASE}/realms/${f.realm}/protocol/openid-connect/logout`)
            .query({ state: big(100_000) }),
        () =>
          f
            .http()
            .post(`${BASE}/realms/${f.realm}/protocol/openid-connect/logout`)
            .type('form')
            .send({ id_token_hint: big(100_000) }),
        () =>
          f
            .http()
            .post(`${BASE}/realms/${f.realm}/protocol/openid-connect/logout`)
            .type('form')
            .send({ post_logout_redirect_uri: big(50_000), client_id: SPA.clientId }),
        () =>
          f
            .http()
            .post(`${BASE}/realms/${big(5_000)}/protocol/openid-connect/auth`)
            .type('form')
            .send(spaParams()),
      ];
      for (const [i, run] of cases.entries()) {
        const res = await run();
        const context = `case ${i}: ${res.status} ${res.text.slice(0, 200)}`;
        expect([context, [400, 404, 413, 414, 431].includes(res.status)]).toEqual([context, true]);
        expect(res.headers.location).toBeUndefined();
      }
      // The login form: a huge password is refused before any hashing, a repeated field too.
      const b = new Browser();
      const form = loginForm(await authorize(f, b, spaParams()));
      for (const creds of [
        { username: 'alice', password: big(100_000) },
        { username: big(10_000), password: 'x' },
      ]) {
        const res = await submitLogin(f, b, form, creds);
        expectErrorPage(res);
      }
      const repeated = b.take(
        await f
          .http()
          .post(actionPath(form.action))
          .type('form')
          .set('Origin', PUBLIC_URL)
          .set('Cookie', b.header())
          .send(`request=${form.request}&username=alice&password=a&password=${encodeURIComponent(ALICE.password)}`),
      );
      expectErrorPage(repeated);
      expect(f.writes).toEqual({ codes: 0, browserSessions: 0 });
    });
  });

  describe('logout', () => {
    it('GET with only the cookie shows a confirmation page and ends nothing until the form is posted with the cookie', async () => {
      const b = new Browser();
      const { code, verifier } = await signIn(f, b);
      const tokens = await exchange(f, code, verifier);
      const confirmPage = b.take(await f.http().get(logoutPath(f.realm)).set('Cookie', b.header()));
      expect(confirmPage.status).toBe(200);
      expect(confirmPage.text).toMatch(/<button id="kc-logout" type="submit"/);
      expect(await ssoWorks(f, b)).toBe(true);
      expect(await active(f, tokens.body.access_token)).toBe(true);
      const confirm = /name="confirm" value="([^"]+)"/.exec(confirmPage.text)![1];

      // Posted from another site, or without the browser's anti-forgery cookie: refused, nothing ended.
      const sso = b.sso(f.realm)!;
      expectErrorPage(
        await f.http().post(logoutPath(f.realm)).type('form').send({ confirm }).set('Cookie', `${SSO_PREFIX}${f.realm}=${sso}`),
      );
      expect(await ssoWorks(f, b)).toBe(true);

      const done = b.take(
        await f.http().post(logoutPath(f.realm)).type('form').set('Origin', PUBLIC_URL).set('Cookie', b.header()).send({ confirm }),
      );
      expect(done.status).toBe(200);
      expect(done.text).toContain('You are signed out');
      expect(b.sso(f.realm)).toBeUndefined();
      expect(await active(f, tokens.body.access_token)).toBe(false);
      expect((await refresh(f, tokens.body.refresh_token)).status).toBe(400);
      // The cookie value kept by an attacker no longer signs in either.
      const stolen = new Browser();
      stolen.cookies.set(SSO_PREFIX + f.realm, sso);
      expect(await ssoWorks(f, stolen)).toBe(false);
    });

    it('the confirmation form posted from another site (Origin) is refused, as the login form is', async () => {
      const b = new Browser();
      await signIn(f, b);
      const confirmPage = b.take(await f.http().get(logoutPath(f.realm)).set('Cookie', b.header()));
      const confirm = /name="confirm" value="([^"]+)"/.exec(confirmPage.text)![1];
      const res = await f
        .http()
        .post(logoutPath(f.realm))
        .type('form')
        .set('Origin', 'https://evil.example')
        .set('Cookie', b.header())
        .send({ confirm });
      expect([400, 403]).toContain(res.status);
      expect(await ssoWorks(f, b)).toBe(true);
    });

    it('an id_token_hint of another realm, forged or tampered is an error page and ends nothing', async () => {
      const b = new Browser();
      const { code, verifier } = await signIn(f, b);
      const tokens = await exchange(f, code, verifier);
      // An ID token of the other realm (same client id, same username there).
      const o = new Browser();
      const other = await signIn(f, o, {}, f.otherRealm);
      const otherAt = await tokenAt(
        f,
        {
          grant_type: 'authorization_code',
          code: other.code,
          redirect_uri: SPA.redirectUri,
          client_id: SPA.clientId,
          code_verifier: other.verifier,
        },
        f.otherRealm,
      );
      expect(otherAt.status).toBe(200);
      const otherId = otherAt.body.id_token as string;
      const [h, p, s] = (tokens.body.id_token as string).split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = [
        `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`,
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`,
        `${Buffer.from(JSON.stringify({ alg: 'HS256', kid: decodeJwtHeaderKid(h) })).toString('base64url')}.${p}.${s}`,
        tokens.body.access_token as string,
        tokens.body.refresh_token as string,
        'not-a-jwt',
      ];
      forged.push(otherId);
      for (const hint of forged) {
        const res = await f
          .http()
          .get(logoutPath(f.realm))
          .query({ id_token_hint: hint, post_logout_redirect_uri: SPA.postLogout })
          .set('Cookie', b.header());
        expectErrorPage(res);
      }
      expect(await active(f, tokens.body.access_token)).toBe(true);
      expect(await ssoWorks(f, b)).toBe(true);
    });

    it("a link with someone else's id_token_hint does not sign the victim's browser out", async () => {
      await f.core.admin.createUser({ realm: f.realm, username: 'mallory', password: 'mallory password 1' });
      const m = new Browser();
      const p = pkce();
      const mPage = await authorize(f, m, spaParams({}, p.challenge));
      const mCode = redirected(
        await submitLogin(f, m, loginForm(mPage), { username: 'mallory', password: 'mallory password 1' }),
      ).params.get('code')!;
      const mTokens = await exchange(f, mCode, p.verifier);
      const victim = new Browser();
      const v = await signIn(f, victim);
      const vTokens = await exchange(f, v.code, v.verifier);
      const res = victim.take(
        await f
          .http()
          .get(logoutPath(f.realm))
          .query({ id_token_hint: mTokens.body.id_token, post_logout_redirect_uri: SPA.postLogout })
          .set('Cookie', victim.header()),
      );
      expect(res.status).toBe(302);
      expect(await ssoWorks(f, victim)).toBe(true);
      expect(await active(f, vTokens.body.access_token)).toBe(true);
    });

    it('logout by refresh token needs the client the token was issued to', async () => {
      const b = new Browser();
      const { code, verifier } = await signIn(f, b);
      const tokens = await exchange(f, code, verifier);
      const res = await f
        .http()
        .post(logoutPath(f.realm))
        .type('form')
        .send({ client_id: SPA2.clientId, refresh_token: tokens.body.refresh_token });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      expect(await active(f, tokens.body.access_token)).toBe(true);
      const noClient = await f.http().post(logoutPath(f.realm)).type('form').send({ refresh_token: tokens.body.refresh_token });
      expect(noClient.status).toBe(400);
      expect(await active(f, tokens.body.access_token)).toBe(true);
    });
  });

  describe('the account changes under an SSO session', () => {
    it('a disabled user: the SSO cookie shows the form, and stays ended once enabled again; their unexchanged code is refused', async () => {
      const b = new Browser();
      await signIn(f, b);
      const pending = pkce();
      const code = redirected(await authorize(f, b, spaParams({}, pending.challenge))).params.get('code')!;
      await f.core.admin.setUserEnabled(f.realm, 'alice', false);
      const page = await authorize(f, b, spaParams());
      expect(page.status).toBe(200);
      loginForm(page);
      const late = await exchange(f, code, pending.verifier);
      expect(late.status).toBe(400);
      expect(late.body.error).toBe('invalid_grant');
      await f.core.admin.setUserEnabled(f.realm, 'alice', true);
      expect(await ssoWorks(f, b)).toBe(false);
    });

    it('a password set by the admin ends the SSO session', async () => {
      const b = new Browser();
      const { code, verifier } = await signIn(f, b);
      const tokens = await exchange(f, code, verifier);
      await f.core.admin.setPassword(f.realm, 'alice', 'a brand new password');
      expect(await ssoWorks(f, b)).toBe(false);
      expect(await active(f, tokens.body.access_token)).toBe(false);
      loginForm(await authorize(f, b, spaParams()));
    });

    it('admin logout of the user ends the SSO session', async () => {
      const b = new Browser();
      await signIn(f, b);
      await f.core.admin.logout(f.realm, 'alice');
      expect(await ssoWorks(f, b)).toBe(false);
    });
  });
});

function decodeJwtHeaderKid(h: string): string {
  return String(JSON.parse(Buffer.from(h, 'base64url').toString()).kid);
}
