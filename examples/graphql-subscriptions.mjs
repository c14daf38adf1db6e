// One streamed answer over GraphQL, with three HTTP subscription clients: urql (fetchSubscriptions),
// graphql-sse (single connection mode) and graphql-tools' HTTP executor (GET + SSE).
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/graphql-subscriptions.mjs
import { Client, fetchExchange } from '@urql/core';
import { createClient } from 'graphql-sse';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { parse } from 'graphql';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const url = `${BASE}/graphql`;
// A user's token (password grant) for the chat proxy; the LM key for the model.
const login = await fetch(`${BASE}/auth/api/v1/oauth/connect/user/login`, {
  method: 'POST',
  body: new URLSearchParams({ realm: process.env.REALM, username: process.env.USERNAME, password: process.env.PASSWORD }),
});
const headers = { authorization: `Bearer ${(await login.json()).access_token}`, 'api-key': process.env.API_KEY };
const query = 'subscription($q: String!) { answerStream(input: { query: $q }) { response finishReason } }';
const variables = { q: 'Why do glaciers retreat?' };
const text = (r) => r.data?.answerStream?.response ?? '';

// urql: POST + SSE (its POSTs are JSON, which satisfies the CSRF rule)
const urql = new Client({ url, exchanges: [fetchExchange], fetchSubscriptions: true, fetchOptions: { headers } });
let viaUrql = '';
await new Promise((resolve, reject) => {
  const { unsubscribe } = urql.subscription(query, variables).subscribe((r) => {
    if (r.error) return reject(r.error);
    viaUrql += text(r);
    if (r.data?.answerStream?.finishReason) setImmediate(() => (unsubscribe(), resolve()));
  });
});
console.log('urql:', viaUrql.length, 'characters');

// graphql-sse: one event stream for every operation of this client
const sse = createClient({ url, headers: { ...headers }, singleConnection: true }); // a copy: the client adds its stream token to it
let viaSse = '';
for await (const r of sse.iterate({ query, variables })) viaSse += text(r);
sse.dispose();
console.log('graphql-sse:', viaSse.length, 'characters');

// graphql-tools: GET + SSE; a GET needs a preflight header under the CSRF rule
const executor = buildHTTPExecutor({ endpoint: url, headers: { ...headers, 'apollo-require-preflight': 'true' } });
let viaExecutor = '';
const events = await executor({ document: parse(query), variables });
if (!(Symbol.asyncIterator in events)) throw new Error(`the executor got no stream: ${JSON.stringify(events)}`);
for await (const r of events) viaExecutor += text(r);
console.log('executor:', viaExecutor.length, 'characters');
console.log('same answer:', viaUrql === viaSse && viaSse === viaExecutor);
