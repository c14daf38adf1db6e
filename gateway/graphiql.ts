import { Router } from 'express';
import { dirname, join } from 'node:path';
import { MethodNotAllowed, NotFound } from '../core/shared/errors';
import { SIGN_IN_SCRIPT } from './graphiql-sign-in';

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
  /** Shown under the bar: why operations typed here are refused (GRAPHQL_TRUSTED_DOCUMENTS=refuse). */
  notice?: string;
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
    #graph-notice { flex: none; margin: 0; padding: 0.375rem 1rem; font: 14px/1.4 system-ui, sans-serif; background: #fff8c5; color: #1f2328; border-bottom: 1px solid #d4a72c; }
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
  </header>${signIn.notice ? `\n  <p id="graph-notice" role="note">${attr(signIn.notice)}</p>` : ''}
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
    notice: signIn.notice,
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
  router.get(`${ASSETS}/signin.js`, (_req, res) => void res.type('js').send(SIGN_IN_SCRIPT));
  router.get(`${ASSETS}/:file`, (req, res) => {
    const file = files.get(req.params.file);
    if (!file) throw new NotFound('No such GraphiQL asset');
    res.sendFile(file, { maxAge: '1h' });
  });
  return router;
}
