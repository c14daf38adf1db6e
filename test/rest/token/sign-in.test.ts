import { createHash, createPublicKey } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import {
  ALICE,
  authorize,
  active,
  BASE,
  Browser,
  exchange,
  issuerOf,
  loginForm,
  redirected,
  refresh,
  signIn,
  signInFixture,
  spaParams,
  SPA,
  SPA2,
  WEB,
  ssoWorks,
  submitLogin,
  pkce,
  type SignInFixture,
} from './sign-in-helpers';

/** OIDC Core §3.1.3.6. */
const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

describe('sign-in for people: authorize → login form → code → tokens', () => {
  let f: SignInFixture;
  beforeEach(async () => {
    f = await signInFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  it('shows the login form, then redirects with code, state and iss; the code gives tokens with an ID token', async () => {
    const b = new Browser();
    const p = pkce();
    const params = spaParams({ nonce: 'nonce-123', state: 'state-456' }, p.challenge);
    const page = await authorize(f, b, params);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<form id="kc-form-login" method="post"/);
    expect(page.text).toMatch(/<input id="username" name="username"/);
    expect(page.text).toMatch(/<input id="password" name="password" type="password"/);
    expect(page.text).toMatch(/<button id="kc-login" type="submit">/);
    expect(page.text).not.toMatch(/id="input-error"/);
    const form = loginForm(page);
    expect(new URL(form.action, issuerOf(f.realm)).toString()).toBe(`${issuerOf(f.realm)}/login-actions/authenticate`);

    // A wrong password shows the form again with #input-error.
    const wrong = await submitLogin(f, b, form, { username: 'alice', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toMatch(/<p id="input-error" class="error" role="alert">Invalid username or password\.<\/p>/);
    expect(b.sso(f.realm)).toBeUndefined();

    const started = f.clock.now();
    const done = await submitLogin(f, b, loginForm(wrong));
    const back = redirected(done);
    expect(back.to).toBe(SPA.redirectUri);
    expect(back.mode).toBe('query');
    expect(back.params.get('state')).toBe('state-456');
    expect(back.params.get('iss')).toBe(issuerOf(f.realm));
    const code = back.params.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The SSO cookie: one per realm, HttpOnly, SameSite=Lax, on the realms' path.
    const sso = (done.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith(`platform_sso_${f.realm}=`))!;
    expect(sso).toMatch(/HttpOnly/i);
    expect(sso).toMatch(/SameSite=Lax/i);
    expect(sso).toMatch(/Path=\/auth\/api\/v1\/realms\//);

    const tokens = await exchange(f, code, p.verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String), refresh_token: expect.any(String) });
    const jwks = (await f.http().get(`${BASE}/realms/${f.realm}/protocol/openid-connect/certs`)).body as JSONWebKeySet;
    const { payload: id, protectedHeader } = await jwtVerify(tokens.body.id_token, createLocalJWKSet(jwks), {
      issuer: issuerOf(f.realm),
      audience: SPA.clientId,
      currentDate: new Date(f.clock.now()),
    });
    expect(protectedHeader.alg).toBe('RS256');
    const access = decodeJwt(tokens.body.access_token);
    expect(id).toMatchObject({
      nonce: 'nonce-123',
      aud: SPA.clientId,
      azp: SPA.clientId,
      auth_time: Math.floor(started / 1000),
      sid: tokens.body.session_state,
      at_hash: atHash(tokens.body.access_token),
      sub: access.sub,
    });
    expect(access.sid).toBe(tokens.body.session_state);
    expect(await active(f, tokens.body.access_token)).toBe(true);

    // Userinfo answers with the access token.
    const info = await f
      .http()
      .get(`${BASE}/realms/${f.realm}/protocol/openid-connect/userinfo`)
      .set('Authorization', `Bearer ${tokens.body.access_token}`);
    expect(info.status).toBe(200);
    expect(info.body.sub).toBe(access.sub);

    // A refresh keeps the person's sign-in: a new ID token with the same nonce and auth_time.
    f.clock.advance(10_000);
    const again = await refresh(f, tokens.body.refresh_token);
    expect(again.status).toBe(200);
    expect(decodeJwt(again.body.id_token)).toMatchObject({ nonce: 'nonce-123', auth_time: Math.floor(started / 1000) });
  });

  it('signs a second client of the realm in at once with the SSO cookie (no form)', async () => {
    const b = new Browser();
    await signIn(f, b);
    const p = pkce();
    const res = await authorize(f, b, spaParams({ client_id: SPA2.clientId, redirect_uri: SPA2.redirectUri, state: 's2' }, p.challenge));
    const back = redirected(res);
    expect(back.to).toBe(SPA2.redirectUri);
    expect(back.params.get('state')).toBe('s2');
    const tokens = await exchange(f, back.params.get('code')!, p.verifier, { client_id: SPA2.clientId, redirect_uri: SPA2.redirectUri });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token).aud).toBe(SPA2.clientId);
    expect(decodeJwt(tokens.body.access_token).preferred_username).toBe('alice');
  });

  it('prompt=none: a code with a session, login_required (with state) without one', async () => {
    const fresh = new Browser();
    const none = redirected(await authorize(f, fresh, spaParams({ prompt: 'none', state: 'abc' })));
    expect(none.to).toBe(SPA.redirectUri);
    expect(Object.fromEntries(none.params)).toMatchObject({ error: 'login_required', state: 'abc', iss: issuerOf(f.realm) });
    expect(none.params.has('code')).toBe(false);

    const b = new Browser();
    await signIn(f, b);
    const ok = redirected(await authorize(f, b, spaParams({ prompt: 'none', state: 'def' })));
    expect(ok.params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ok.params.get('state')).toBe('def');
  });

  it('prompt=login shows the form despite the session, and the new sign-in has a new auth_time', async () => {
    const b = new Browser();
    await signIn(f, b);
    f.clock.advance(120_000);
    const p = pkce();
    const page = await authorize(f, b, spaParams({ prompt: 'login' }, p.challenge));
    expect(page.status).toBe(200);
    const code = redirected(await submitLogin(f, b, loginForm(page))).params.get('code')!;
    const tokens = await exchange(f, code, p.verifier);
    expect(decodeJwt(tokens.body.id_token).auth_time).toBe(Math.floor(f.clock.now() / 1000));
  });

  it('max_age=0 asks for the password again (OIDC Core: max_age=0 is prompt=login), even in the same second', async () => {
    const b = new Browser();
    await signIn(f, b);
    const page = await authorize(f, b, spaParams({ max_age: '0' }));
    expect(page.status).toBe(200);
    loginForm(page);
  });

  it('max_age: within it a code at once, past it the form', async () => {
    const b = new Browser();
    await signIn(f, b);
    f.clock.advance(30_000);
    expect(redirected(await authorize(f, b, spaParams({ max_age: '60' }))).params.has('code')).toBe(true);
    f.clock.advance(31_000);
    const page = await authorize(f, b, spaParams({ max_age: '60' }));
    expect(page.status).toBe(200);
    loginForm(page);
  });

  it('login_hint prefills the username (escaped)', async () => {
    const page = await authorize(f, new Browser(), spaParams({ login_hint: 'alice"><b>x' }));
    expect(page.status).toBe(200);
    expect(loginForm(page).username).toBe('alice"><b>x');
    expect(page.text).not.toContain('"><b>x');
    expect(page.text).toContain('value="alice&quot;&gt;&lt;b&gt;x"');
  });

  it('response_mode=fragment puts code, state and iss in the fragment', async () => {
    const b = new Browser();
    const { back, verifier } = await signIn(f, b, { response_mode: 'fragment', state: 'frag' });
    expect(back.mode).toBe('fragment');
    expect(back.to).toBe(SPA.redirectUri);
    expect(back.params.get('state')).toBe('frag');
    expect(back.params.get('iss')).toBe(issuerOf(f.realm));
    expect((await exchange(f, back.params.get('code')!, verifier)).status).toBe(200);
  });

  it('names the realm by name and by `default`; the issuer is always the id one', async () => {
    for (const ref of ['main', 'MAIN', 'default']) {
      const b = new Browser();
      const { back, verifier } = await signIn(f, b, {}, ref);
      expect(back.params.get('iss')).toBe(issuerOf(f.realm));
      const tokens = await exchange(f, back.params.get('code')!, verifier);
      expect(tokens.status).toBe(200);
      expect(decodeJwt(tokens.body.id_token).iss).toBe(issuerOf(f.realm));
      // The cookie is the realm's (by id), so SSO works whichever way the realm is named.
      expect(b.sso(f.realm)).toBeDefined();
      expect(redirected(await authorize(f, b, spaParams({ prompt: 'none' }), 'main')).params.has('code')).toBe(true);
    }
  });

  it('discovery lists the browser endpoints; under a name or `default` it moves (307) to the id', async () => {
    const issuer = issuerOf(f.realm);
    const res = await f.http().get(`${BASE}/realms/${f.realm}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
      token_endpoint: `${issuer}/protocol/openid-connect/token`,
      end_session_endpoint: `${issuer}/protocol/openid-connect/logout`,
      jwks_uri: `${issuer}/protocol/openid-connect/certs`,
      userinfo_endpoint: `${issuer}/protocol/openid-connect/userinfo`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment'],
    });
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    for (const alias of ['main', 'default']) {
      const moved = await f.http().get(`${BASE}/realms/${alias}/.well-known/openid-configuration`);
      expect(moved.status).toBe(307);
      expect(moved.headers.location).toBe(`${issuer}/.well-known/openid-configuration`);
    }
  });

  it("Keycloak's GET realms/{realm}: public_key verifies the realm's tokens; token-service is the realm's openid-connect path", async () => {
    const b = new Browser();
    const { code, verifier } = await signIn(f, b);
    const tokens = await exchange(f, code, verifier);
    for (const ref of [f.realm, 'main']) {
      const res = await f.http().get(`${BASE}/realms/${ref}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ realm: f.realm, 'token-service': `${issuerOf(f.realm)}/protocol/openid-connect` });
      const pem = `-----BEGIN PUBLIC KEY-----\n${(res.body.public_key as string).match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
      const key = createPublicKey(pem);
      for (const jwt of [tokens.body.access_token, tokens.body.id_token]) {
        const { payload } = await jwtVerify(jwt, key, { issuer: issuerOf(f.realm), currentDate: new Date(f.clock.now()) });
        expect(payload.sub).toBe(decodeJwt(tokens.body.access_token).sub);
      }
    }
  });

  it("python-keycloak's KeycloakOpenID, request for request (server_url <base>/auth/api/v1, realm_name main): token, refresh_token, userinfo, introspect, public_key, well_known, logout", async () => {
    // The bodies python-keycloak 5 sends (keycloak/keycloak_openid.py), as forms, the realm by name.
    const realmUrl = `${BASE}/realms/main`;
    const form = (path: string, body: Record<string, string>) => f.http().post(`${realmUrl}${path}`).type('form').send(body);
    const creds = { client_id: WEB.clientId, client_secret: f.webSecret };
    // token(username, password): the password grant, with the empty code and redirect_uri python-keycloak adds.
    const token = await form('/protocol/openid-connect/token', {
      ...creds,
      username: ALICE.username,
      password: ALICE.password,
      grant_type: 'password',
      code: '',
      redirect_uri: '',
      scope: 'openid',
    });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('openid') });
    // refresh_token(refresh_token)
    const refreshed = await form('/protocol/openid-connect/token', {
      ...creds,
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    // userinfo(token): GET with the bearer token
    const me = await f
      .http()
      .get(`${realmUrl}/protocol/openid-connect/userinfo`)
      .set('authorization', `Bearer ${refreshed.body.access_token}`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ preferred_username: ALICE.username });
    // introspect(token): the client authenticates with its secret
    const intro = await form('/protocol/openid-connect/token/introspect', { ...creds, token: refreshed.body.access_token });
    expect(intro.status).toBe(200);
    expect(intro.body).toMatchObject({ active: true, username: ALICE.username });
    // public_key(): GET realms/{realm_name}, then its public_key field
    const realm = await f.http().get(realmUrl);
    expect(realm.status).toBe(200);
    expect(realm.body.public_key).toMatch(/^MII/);
    // well_known(): the discovery document, under the name a redirect to the issuer's (requests follows it)
    const wk = await f.http().get(`${realmUrl}/.well-known/openid-configuration`);
    expect(wk.status).toBe(307);
    expect((await f.http().get(new URL(wk.headers.location).pathname)).body).toMatchObject({ issuer: issuerOf(f.realm) });
    // logout(refresh_token): 204, and the session's tokens are over
    const out = await form('/protocol/openid-connect/logout', { ...creds, refresh_token: refreshed.body.refresh_token });
    expect(out.status).toBe(204);
    expect(await active(f, refreshed.body.access_token)).toBe(false);
  });

  it('python-keycloak logout: POST client_id + refresh_token → 204, the session and the SSO session ended', async () => {
    const b = new Browser();
    const { code, verifier } = await signIn(f, b);
    const tokens = await exchange(f, code, verifier);
    const res = await f
      .http()
      .post(`${BASE}/realms/main/protocol/openid-connect/logout`)
      .type('form')
      .send({ client_id: SPA.clientId, refresh_token: tokens.body.refresh_token });
    expect(res.status).toBe(204);
    expect(await active(f, tokens.body.access_token)).toBe(false);
    const r = await refresh(f, tokens.body.refresh_token);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
    expect(await ssoWorks(f, b)).toBe(false);
  });

  it('RP-initiated logout with id_token_hint: 302 to the registered URI with state; tokens and SSO ended', async () => {
    const b = new Browser();
    const { code, verifier } = await signIn(f, b);
    const tokens = await exchange(f, code, verifier);
    const res = b.take(
      await f
        .http()
        .get(`${BASE}/realms/${f.realm}/protocol/openid-connect/logout`)
        .query({ id_token_hint: tokens.body.id_token, post_logout_redirect_uri: SPA.postLogout, state: 'bye & back' })
        .set('Cookie', b.header()),
    );
    expect(res.status).toBe(302);
    const back = new URL(res.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe(SPA.postLogout);
    expect(back.searchParams.get('state')).toBe('bye & back');
    expect(b.sso(f.realm)).toBeUndefined();
    expect(await active(f, tokens.body.access_token)).toBe(false);
    expect((await refresh(f, tokens.body.refresh_token)).status).toBe(400);
    const page = await authorize(f, b, spaParams());
    expect(page.status).toBe(200);
    loginForm(page);
  });

  it('the confidential client signs in with the form too, its secret at the exchange and no PKCE needed', async () => {
    const b = new Browser();
    const page = await authorize(f, b, {
      response_type: 'code',
      client_id: 'web',
      redirect_uri: 'https://web.example/oidc/callback',
      scope: 'openid',
      state: 'w',
    });
    const back = redirected(await submitLogin(f, b, loginForm(page), ALICE));
    const tokens = await f
      .http()
      .post(`${BASE}/realms/${f.realm}/protocol/openid-connect/token`)
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code: back.params.get('code')!,
        redirect_uri: 'https://web.example/oidc/callback',
        client_id: 'web',
        client_secret: f.webSecret,
      });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token).aud).toBe('web');
  });
});
