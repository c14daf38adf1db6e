/**
 * The sign-in bar's script: the authorization-code flow with PKCE (S256) against the realm, as the
 * public client of the platform's own pages, in plain browser code (Web Crypto for the challenge
 * and the random verifier, state and nonce; sessionStorage for them while the browser is at the
 * login page). Back at /graphiql with `code` and `state`, it checks the state, takes them off the
 * address, exchanges the code at the token endpoint and checks the ID token's nonce and audience.
 * The access token is kept in memory and renewed with the refresh token a minute before it
 * expires (and before an operation, if a sleeping tab missed that); the refresh and ID tokens are
 * kept in the tab's sessionStorage so that a reload stays signed in (the page runs only its own
 * scripts, served by the platform, so a script that could read them could as well read the
 * memory). Sign out goes to the end-session endpoint with the ID token as hint, and back.
 * `window.platformSignIn.bearer()` is what init.js's fetcher asks for each operation.
 */
export const SIGN_IN_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  var clientId = script.getAttribute('data-client-id');
  var realm = script.getAttribute('data-realm');
  var publicUrl = script.getAttribute('data-public-url') || ownBase();
  // The client's registered redirect and post-logout URI: matched exactly by the token service.
  var pageUrl = publicUrl + '/graphiql';
  var oidc = publicUrl + '/auth/api/v1/realms/' + encodeURIComponent(realm) + '/protocol/openid-connect/';
  // sessionStorage: this tab only, gone when it closes. PENDING holds the PKCE verifier, state and
  // nonce while the browser is at the login page; KEPT the refresh and ID tokens, so that reloading
  // GraphiQL (which it keeps its tabs across) does not sign the person out. The access token stays
  // in memory only.
  var PENDING = 'platform-signin:pending';
  var KEPT = 'platform-signin:tokens';
  var LEAVING = 'platform-signin:signout-state';

  var status = document.getElementById('signin-status');
  var signInButton = document.getElementById('signin-button');
  var signOutButton = document.getElementById('signout-button');
  var tokens = null; // { access, expiresAt, refresh, idToken }
  var timer = null;
  var working = null; // the code exchange or refresh in flight: operations wait for it

  function ownBase() {
    var path = location.pathname;
    if (path.endsWith('/graphiql')) path = path.slice(0, -'/graphiql'.length);
    return location.origin + path;
  }
  function announce(text) {
    if (status.textContent !== text) status.textContent = text;
  }
  function showButtons() {
    signInButton.hidden = !!tokens;
    signOutButton.hidden = !tokens;
  }
  function base64url(bytes) {
    var text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
  }
  function random(size) {
    return base64url(crypto.getRandomValues(new Uint8Array(size)));
  }
  /** A JWT's claims, unverified: the tokens come straight from the token endpoint over this page's connection. */
  function claims(jwt) {
    try {
      var part = jwt.split('.')[1].replaceAll('-', '+').replaceAll('_', '/');
      var binary = atob(part + '='.repeat((4 - (part.length % 4)) % 4));
      return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, function (c) { return c.charCodeAt(0); })));
    } catch (err) {
      return {};
    }
  }
  function who() {
    var id = claims(tokens.idToken || '');
    var access = claims(tokens.access || '');
    return id.preferred_username || access.preferred_username || id.sub || access.sub || 'an unnamed user';
  }

  async function signIn() {
    if (location.origin + location.pathname !== pageUrl) {
      // The login page comes back to PUBLIC_URL's GraphiQL, whose tab storage holds the verifier.
      location.assign(pageUrl + '#sign-in');
      return;
    }
    if (!window.crypto || !crypto.subtle) {
      announce('Sign-in needs HTTPS or localhost: this browser offers no Web Crypto (for PKCE) on a plain-HTTP address.');
      return;
    }
    var verifier = random(32);
    var state = random(16);
    var nonce = random(16);
    var challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
    sessionStorage.setItem(PENDING, JSON.stringify({ state: state, nonce: nonce, verifier: verifier }));
    var query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: pageUrl,
      scope: 'openid',
      state: state,
      nonce: nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    announce('Going to the sign-in page...');
    location.assign(oidc + 'auth?' + query.toString());
  }

  async function tokenRequest(form) {
    var res = await fetch(oidc + 'token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    var body = await res.json().catch(function () { return {}; });
    if (!res.ok || typeof body.access_token !== 'string') {
      var err = new Error(body.error_description || body.error || 'the token endpoint answered ' + res.status);
      err.status = res.status;
      throw err;
    }
    return body;
  }

  function keep(answer) {
    var before = tokens || {};
    tokens = {
      access: answer.access_token,
      expiresAt: Date.now() + (answer.expires_in > 0 ? answer.expires_in : 300) * 1000,
      refresh: answer.refresh_token || before.refresh,
      idToken: answer.id_token || before.idToken,
    };
    if (tokens.refresh) sessionStorage.setItem(KEPT, JSON.stringify({ refresh: tokens.refresh, idToken: tokens.idToken }));
    else sessionStorage.removeItem(KEPT);
    schedule((tokens.expiresAt - Date.now()) / 1000);
    showButtons();
    announce('Signed in as ' + who() + ': every operation carries your token.');
  }

  function forget() {
    tokens = null;
    clearTimeout(timer);
    sessionStorage.removeItem(KEPT);
    showButtons();
  }

  /** Renews the access token a minute before it expires (halfway through a short one). */
  function schedule(lifetime) {
    clearTimeout(timer);
    if (!tokens || !tokens.refresh) return;
    var wait = lifetime > 120 ? lifetime - 60 : lifetime / 2;
    timer = setTimeout(refresh, Math.max(wait, 1) * 1000);
  }

  function refresh() {
    if (working) return working;
    if (!tokens || !tokens.refresh) return Promise.resolve();
    working = tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh, client_id: clientId })
      .then(keep, function (err) {
        if (err.status === 400 || err.status === 401) {
          // The session ended (signed out elsewhere, revoked, expired): the token is no more.
          forget();
          announce('Signed out: your session ended (' + err.message + '). Sign in again.');
        } else {
          announce('Could not renew your token (' + err.message + '): trying again in 30 seconds.');
          clearTimeout(timer);
          timer = setTimeout(refresh, 30000);
        }
      })
      .finally(function () {
        working = null;
      });
    return working;
  }

  async function finishSignIn(params) {
    var pending = JSON.parse(sessionStorage.getItem(PENDING) || 'null');
    sessionStorage.removeItem(PENDING);
    // The answer must be to a sign-in this tab started (state), or it is ignored: login CSRF.
    if (!pending || params.get('state') !== pending.state) throw new Error('the answer does not match a sign-in started in this tab (state)');
    if (params.has('error')) throw new Error(params.get('error_description') || params.get('error'));
    var answer = await tokenRequest({
      grant_type: 'authorization_code',
      code: params.get('code') || '',
      redirect_uri: pageUrl,
      client_id: clientId,
      code_verifier: pending.verifier,
    });
    var id = claims(answer.id_token || '');
    var audience = [].concat(id.aud);
    if (id.nonce !== pending.nonce || audience.indexOf(clientId) < 0) throw new Error('the ID token is not for this sign-in (nonce or audience)');
    keep(answer);
  }

  function signOut() {
    var idToken = tokens && tokens.idToken;
    forget();
    var state = random(16);
    sessionStorage.setItem(LEAVING, state);
    var query = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: pageUrl, state: state });
    if (idToken) query.set('id_token_hint', idToken);
    announce('Signing out...');
    location.assign(oidc + 'logout?' + query.toString());
  }

  /** Takes the token service's answer off the address bar (a code is for one use, and not for bookmarks). */
  function dropFromAddress(names) {
    var url = new URL(location.href);
    names.forEach(function (name) { url.searchParams.delete(name); });
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  }

  signInButton.addEventListener('click', function () {
    signIn().catch(function (err) { announce('Sign-in failed: ' + err.message); });
  });
  signOutButton.addEventListener('click', signOut);

  var params = new URLSearchParams(location.search);
  var kept = JSON.parse(sessionStorage.getItem(KEPT) || 'null');
  if (params.has('code') || params.has('error')) {
    dropFromAddress(['code', 'state', 'iss', 'session_state', 'error', 'error_description', 'error_uri']);
    announce('Signing in...');
    working = finishSignIn(params)
      .catch(function (err) {
        forget();
        announce('Sign-in failed: ' + err.message + '.');
      })
      .finally(function () {
        working = null;
      });
  } else if (params.has('state') && sessionStorage.getItem(LEAVING) !== null) {
    var expected = sessionStorage.getItem(LEAVING);
    sessionStorage.removeItem(LEAVING);
    dropFromAddress(['state']);
    announce(params.get('state') === expected ? 'Signed out.' : 'Signed out (the answer of the logout page did not match this tab).');
  } else if (kept && kept.refresh) {
    tokens = { access: null, expiresAt: 0, refresh: kept.refresh, idToken: kept.idToken };
    showButtons();
    announce('Renewing your sign-in...');
    refresh();
  } else if (location.hash === '#sign-in' && location.origin + location.pathname === pageUrl) {
    history.replaceState(history.state, '', location.pathname + location.search);
    signIn().catch(function (err) { announce('Sign-in failed: ' + err.message); });
  }

  /** For the fetcher (init.js): the bearer to send, renewed first if it is about to expire; null when signed out. */
  window.platformSignIn = {
    bearer: async function () {
      if (working) await working;
      if (tokens && tokens.refresh && Date.now() > tokens.expiresAt - 10000) await refresh();
      return tokens && tokens.access ? 'Bearer ' + tokens.access : null;
    },
  };
})();`;
