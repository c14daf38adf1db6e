import { Router } from 'express';
import { dirname, join } from 'node:path';
import { MethodNotAllowed, NotFound } from '../core/shared/errors';

/**
 * An offline GraphiQL (Apollo Sandbox loads from the internet). React and GraphiQL come from
 * their npm packages and are served by this process.
 */
const ASSETS = '/_assets/graphiql';

const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Where the sign-in bar signs people in: the realm and the public client of the platform's own pages. */
export interface GraphiqlSignIn {
  /**
   * PUBLIC_URL: the address the platform is configured at. The page comes back from the login
   * page to PUBLIC_URL + '/graphiql' (the client's redirect URI, matched exactly), and the token
   * service's endpoints are under it. Without it the page takes its own address, less `/graphiql`.
   */
  publicUrl?: string;
  /** The realm, as the token service's paths name it (its id, its name or `default`). */
  realm?: string;
  /** The public client registered with PUBLIC_URL + '/graphiql' as redirect and post-logout URI. */
  clientId?: string;
}

const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page: a sign-in bar (a real button, its status announced by a live region) above GraphiQL.
 * The bar keeps its own colours, light or dark with GraphiQL's theme, so its contrast does not
 * depend on GraphiQL's stylesheet.
 */
const page = (endpoint: string, signIn: GraphiqlSignIn & { realm: string; clientId: string }) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>GraphiQL - platform graph</title>
  <style>
    html, body { margin: 0; height: 100%; }
    body { display: flex; flex-direction: column; height: 100vh; }
    #graphiql { flex: 1; min-height: 0; }
    #signin-bar { flex: none; display: flex; align-items: center; gap: 0.75rem; padding: 0.375rem 1rem;
      font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background: #f6f8fa; color: #1f2328; border-bottom: 1px solid #d0d7de; }
    #signin-bar .signin-title { font-weight: 600; }
    #signin-status { margin: 0; flex: 1; min-width: 0; }
    #signin-bar button { font: inherit; padding: 0.25rem 0.875rem; border: 1px solid #57606a; border-radius: 6px;
      background: #ffffff; color: #1f2328; cursor: pointer; }
    #signin-bar button:hover { background: #eaeef2; }
    #signin-bar button:focus-visible { outline: 3px solid #0550ae; outline-offset: 2px; }
    #signin-bar button[hidden] { display: none; }
    body.graphiql-dark #signin-bar { background: #161b22; color: #e6edf3; border-bottom-color: #30363d; }
    body.graphiql-dark #signin-bar button { background: #21262d; color: #e6edf3; border-color: #8b949e; }
    body.graphiql-dark #signin-bar button:hover { background: #30363d; }
    body.graphiql-dark #signin-bar button:focus-visible { outline-color: #79c0ff; }
  </style>
  <link rel="stylesheet" href="${ASSETS}/graphiql.min.css">
</head>
<body>
  <header id="signin-bar" aria-label="Sign-in">
    <span class="signin-title">Platform graph</span>
    <p id="signin-status" role="status" aria-live="polite">Not signed in: sign in to send your token with every operation.</p>
    <button id="signin-button" type="button">Sign in</button>
    <button id="signout-button" type="button" hidden>Sign out</button>
  </header>
  <div id="graphiql">Loading...</div>
  <script src="${ASSETS}/react.production.min.js"></script>
  <script src="${ASSETS}/react-dom.production.min.js"></script>
  <script src="${ASSETS}/graphiql.min.js"></script>
  <script src="${ASSETS}/signin.js"${signIn.publicUrl ? ` data-public-url="${attr(signIn.publicUrl.replace(/\/+$/, ''))}"` : ''} data-realm="${attr(signIn.realm)}" data-client-id="${attr(signIn.clientId)}"></script>
  <script src="${ASSETS}/init.js" data-endpoint="${attr(endpoint)}"></script>
</body>
</html>`;

/**
 * The document GraphiQL opens on (its first tab, until the person's own tabs are kept in the
 * browser): how to sign in (the bar's button, or Login and a header), the LM key to put in the
 * Headers pane and where it comes from, then operations that run on a fresh default start, in
 * order. The subscription asks for `answerSoFar`, since GraphiQL shows only a subscription's
 * latest event (each event's `response` is the next piece alone).
 */
export const EXAMPLE_DOCUMENT = `# The platform's federated graph. Run an operation with the run button (it asks which one) or Ctrl-Enter.
#
# 1. Sign in with the button at the top of the page, as the demo user of data/bootstrap.json (print
#    it from the project folder with \`npm run -s platform -- credentials\`): every operation then
#    carries your token, renewed before it expires, and Sign out ends the session.
#    Or, without the button: put the demo user in Variables below, run Login, and set
#    "Authorization": "Bearer <accessToken>" in the Headers tab (an Authorization typed there is
#    sent instead of the signed-in one; the token lasts expiresIn seconds).
# 2. Open the Headers tab below and set bootstrap.json's LM key, for models and Answer:
#      { "api-key": "<api_key>" }
# 3. Run AddDocument, Search, then Answer: a subscription whose answerSoFar grows into the
#    whole answer (each event's response field holds only the next piece).

mutation Login($username: String!, $password: String!) {
  loginUser(input: { username: $username, password: $password }) {
    accessToken
    expiresIn
  }
}

mutation AddDocument {
  addDocument(input: { title: "Glaciers", content: "Glaciers retreat as the climate warms. Their meltwater raises the sea." }) {
    title
    chunkCount
  }
}

query Search {
  viewer { username realm { name } }
  search(query: "glaciers") { totalCount hits { document { title } } }
  models { id kind contextLength }
}

subscription Answer {
  answerStream(input: { query: "Why do glaciers retreat?" }) {
    answerSoFar
    finishReason
    sources { citation document { title } }
  }
}
`;

/** Login's variables, to be replaced by the demo user's. */
export const EXAMPLE_VARIABLES = `{
  "username": "<username from data/bootstrap.json>",
  "password": "<password from data/bootstrap.json>"
}
`;

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
const signInScript = `(function () {
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

/**
 * Queries and mutations go over HTTP, subscriptions over graphql-ws at the same URL (GraphiQL's
 * bundle carries graphql-ws's client). For a subscription GraphiQL opens a socket whose
 * connection_init payload is the header pane's headers, so `Authorization` and `api-key` typed
 * there reach it as they reach a query; the signed-in person's bearer token is added to those
 * headers (so it reaches both) unless an `Authorization` was typed, in any case.
 */
const init = `(function () {
  var url = new URL(document.currentScript.getAttribute('data-endpoint'), location.href);
  var socket = new URL(url);
  socket.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  var fetcher = GraphiQL.createFetcher({ url: url.toString(), subscriptionUrl: socket.toString() });
  // The example opens the first visit; later visits find the person's own tabs (GraphiQL keeps them
  // in localStorage). GraphiQL fills the variables editor from its \`variables\` prop, not from a tab.
  var firstVisit = localStorage.getItem('graphiql:tabState') === null;
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, Object.assign({
    fetcher: withSignIn(withOperationKinds(fetcher)), defaultEditorToolsVisibility: true,
    defaultTabs: [{ query: ${JSON.stringify(EXAMPLE_DOCUMENT)}, variables: ${JSON.stringify(EXAMPLE_VARIABLES)} }],
  }, firstVisit ? { variables: ${JSON.stringify(EXAMPLE_VARIABLES)} } : {})));

  // The signed-in person's token (signin.js), renewed if it is about to expire, with every operation:
  // HTTP's headers and the socket's connection_init are both made of these headers.
  function withSignIn(inner) {
    return function (params, opts) {
      var headers = (opts && opts.headers) || {};
      var typed = Object.keys(headers).some(function (name) { return name.toLowerCase() === 'authorization'; });
      if (typed || !window.platformSignIn) return inner(params, opts);
      return window.platformSignIn.bearer().then(function (bearer) {
        if (!bearer) return inner(params, opts);
        return inner(params, Object.assign({}, opts, { headers: Object.assign({}, headers, { Authorization: bearer }) }));
      });
    };
  }

  // GraphiQL sends an operation over the socket only when its editor has parsed the document, which
  // it does 100 ms after the last keystroke; run sooner (a paste then Ctrl-Enter) and a subscription
  // went over HTTP and was refused. When no parsed document comes, the operations' kinds and names
  // are read from the text (strings and comments left out), which is all the fetcher looks at.
  function withOperationKinds(inner) {
    return function (params, opts) {
      if (opts && opts.documentAST) return inner(params, opts);
      return inner(params, Object.assign({}, opts, { documentAST: outline(params.query || '') }));
    };
  }
  function outline(text) {
    var bare = text.replace(/"""[\\s\\S]*?"""|"(?:[^"\\\\\\n]|\\\\.)*"|#[^\\n]*/g, ' ');
    var definitions = [];
    var depth = 0;
    var re = /[{}]|\\b(query|mutation|subscription)\\b\\s*([_A-Za-z][_0-9A-Za-z]*)?/g;
    var m;
    while ((m = re.exec(bare))) {
      if (m[0] === '{') depth++;
      else if (m[0] === '}') depth--;
      else if (depth === 0) definitions.push({ kind: 'OperationDefinition', operation: m[1],
        name: m[2] ? { kind: 'Name', value: m[2] } : undefined, selectionSet: { kind: 'SelectionSet', selections: [] } });
    }
    return { kind: 'Document', definitions: definitions };
  }
})();`;

/** GraphiQL at /graphiql, querying `endpoint`, with a sign-in bar for `signIn`'s realm and client (default: `default`, `platform-console`). */
export function graphiqlRouter(endpoint: string, signIn: GraphiqlSignIn = {}): Router {
  const html = page(endpoint, {
    publicUrl: signIn.publicUrl,
    realm: signIn.realm ?? 'default',
    clientId: signIn.clientId ?? 'platform-console',
  });
  // A Map, not an object: `constructor` or `__proto__` must not name a "file" (that answered 500).
  const files = new Map([
    ['react.production.min.js', join(pkgDir('react'), 'umd', 'react.production.min.js')],
    ['react-dom.production.min.js', join(pkgDir('react-dom'), 'umd', 'react-dom.production.min.js')],
    ['graphiql.min.js', join(pkgDir('graphiql'), 'graphiql.min.js')],
    ['graphiql.min.css', join(pkgDir('graphiql'), 'graphiql.min.css')],
  ]);
  const router = Router();
  router
    .route('/graphiql')
    .get((_req, res) => void res.type('html').send(html))
    .all(() => {
      throw new MethodNotAllowed(['GET', 'HEAD']);
    });
  router.get(`${ASSETS}/init.js`, (_req, res) => void res.type('js').send(init));
  router.get(`${ASSETS}/signin.js`, (_req, res) => void res.type('js').send(signInScript));
  router.get(`${ASSETS}/:file`, (req, res) => {
    const file = files.get(req.params.file);
    if (!file) throw new NotFound('No such GraphiQL asset');
    res.sendFile(file, { maxAge: '1h' });
  });
  return router;
}
