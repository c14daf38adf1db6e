import { Router } from 'express';
import { dirname, join } from 'node:path';
import { MethodNotAllowed, NotFound } from '../core/shared/errors';

/**
 * An offline GraphiQL (Apollo Sandbox loads from the internet). React and GraphiQL come from
 * their npm packages and are served by this process.
 */
const ASSETS = '/_assets/graphiql';

const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

const page = (endpoint: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>GraphiQL - platform graph</title>
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" href="${ASSETS}/graphiql.min.css">
</head>
<body>
  <div id="graphiql">Loading...</div>
  <script src="${ASSETS}/react.production.min.js"></script>
  <script src="${ASSETS}/react-dom.production.min.js"></script>
  <script src="${ASSETS}/graphiql.min.js"></script>
  <script src="${ASSETS}/init.js" data-endpoint="${endpoint}"></script>
</body>
</html>`;

/**
 * The document GraphiQL opens on (its first tab, until the person's own tabs are kept in the
 * browser): what to put in the Headers pane and where it comes from, then operations that run on a
 * fresh default start, in order. The subscription asks for `answerSoFar`, since GraphiQL shows only
 * a subscription's latest event (each event's `response` is the next piece alone).
 */
export const EXAMPLE_DOCUMENT = `# The platform's federated graph. Run an operation with the run button (it asks which one) or Ctrl-Enter.
#
# 1. Login: put the demo user of data/bootstrap.json in Variables below (print it from the
#    project folder with \`npm run -s platform -- credentials\`), then run Login.
# 2. Open the Headers tab below and set, with Login's accessToken and bootstrap.json's api_key:
#      { "Authorization": "Bearer <accessToken>", "api-key": "<api_key>" }
#    (the token lasts expiresIn seconds: run Login again for a new one).
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
 * there reach it as they reach a query.
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
    fetcher: withOperationKinds(fetcher), defaultEditorToolsVisibility: true,
    defaultTabs: [{ query: ${JSON.stringify(EXAMPLE_DOCUMENT)}, variables: ${JSON.stringify(EXAMPLE_VARIABLES)} }],
  }, firstVisit ? { variables: ${JSON.stringify(EXAMPLE_VARIABLES)} } : {})));

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

export function graphiqlRouter(endpoint: string): Router {
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
    .get((_req, res) => void res.type('html').send(page(endpoint)))
    .all(() => {
      throw new MethodNotAllowed(['GET', 'HEAD']);
    });
  router.get(`${ASSETS}/init.js`, (_req, res) => void res.type('js').send(init));
  router.get(`${ASSETS}/:file`, (req, res) => {
    const file = files.get(req.params.file);
    if (!file) throw new NotFound('No such GraphiQL asset');
    res.sendFile(file, { maxAge: '1h' });
  });
  return router;
}
