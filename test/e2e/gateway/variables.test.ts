import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startInTemp, type Started } from '../shared/server';
import { multipartParts, postOperation, run, socketClient, wsUrl } from '../shared/subscription-wire';

/**
 * GraphQL variables nested thousands of levels deep (they overflowed the stack: an unlogged
 * INTERNAL_SERVER_ERROR) or holding too many values are refused before execution on every
 * transport: HTTP POST and GET, graphql-ws, GraphQL over SSE and multipart, at the gateway and on
 * subgraphs served alone. GRAPHQL_MAX_VARIABLE_VALUES is set low here so a GET can carry past it.
 */
const MAX_VALUES = 50;
const deepObject = (n: number): Record<string, unknown> => {
  let v: Record<string, unknown> = { a: 1 };
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};
/** JSON text of a value nested `n` deep, without JSON.stringify (whose recursion would overflow first). */
const deepText = (n: number) => `${'['.repeat(n)}"a.txt"${']'.repeat(n)}`;

const PASSAGES = 'query($k: JSONObject) { passages(query: "x", customMetadata: $k) { totalCount } }';
const SOURCES = 'query($input: AskInput!) { sources(input: $input) { searchText } }';
const STREAM = 'subscription($input: AskInput!) { answerStream(input: $input) { response } }';
const TYPE = 'query($name: String!) { __type(name: $name) { name } }';

const tooDeep = { code: 'BAD_USER_INPUT', reason: 'json_too_deep', message: expect.stringMatching(/\b128\b/) };
const tooLarge = {
  code: 'BAD_USER_INPUT',
  reason: 'variables_too_large',
  message: expect.stringMatching(new RegExp(`\\b${MAX_VALUES}\\b.*GRAPHQL_MAX_VARIABLE_VALUES`)),
};
const refusalOf = (body: any) => ({
  code: body?.errors?.[0]?.extensions?.code,
  reason: body?.errors?.[0]?.extensions?.reason,
  message: body?.errors?.[0]?.message,
});

const servers: Record<string, Started> = {};
beforeAll(async () => {
  const env = { GRAPHQL_MAX_VARIABLE_VALUES: String(MAX_VALUES) };
  [servers.gateway, servers.search, servers.chat] = await Promise.all([
    startInTemp('all', env),
    startInTemp('search', env),
    startInTemp('chat', env),
  ]);
}, 90_000);
afterAll(() => Promise.all(Object.values(servers).map((s) => s.stop())));

const clients: Client[] = [];
afterEach(() => Promise.all(clients.splice(0).map(async (c) => c.dispose())));

/** An operation over plain HTTP POST, its body given as JSON text (deep values cannot go through JSON.stringify). */
const postText = async (base: string, text: string, accept?: string) => {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: text,
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
};
const get = async (base: string, query: string, variablesText: string) => {
  // Brackets stay literal in a URL's query, so thousands of levels fit in node's header limit.
  const res = await fetch(`${base}/graphql?query=${encodeURIComponent(query)}&variables=${variablesText}`, {
    headers: { 'apollo-require-preflight': '1' },
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
};
/**
 * One graphql-transport-ws subscribe whose message is given as text (a deep value cannot go
 * through a client's JSON.stringify): the server's first answer to it (`error`, `next`, ...).
 */
const rawSubscribe = (base: string, payloadText: string) =>
  new Promise<any>((resolve, reject) => {
    const ws = new WebSocket(wsUrl(base), 'graphql-transport-ws');
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'connection_ack') return void ws.send(`{"id":"1","type":"subscribe","payload":${payloadText}}`);
      if (m.type === 'ping') return;
      ws.close();
      resolve(m);
    });
  });
const overSocket = async (base: string, query: string, variables: Record<string, unknown>) => {
  const client = socketClient(base, {});
  clients.push(client);
  const { results, error } = await run(client, query, variables);
  return {
    results,
    error: (Array.isArray(error) ? error[0] : error) as { message?: string; extensions?: { code?: string; reason?: string } } | undefined,
  };
};

describe.each([
  ['the gateway', 'gateway', PASSAGES],
  ['search served alone', 'search', PASSAGES],
  ['chat served alone', 'chat', SOURCES],
])('on %s', (_name, role, query) => {
  const base = () => servers[role].url;
  const deepVariables = (n: number) =>
    query === PASSAGES ? `{"k":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}` : `{"input":{"query":"x","files":${deepText(n)}}}`;

  it.each([4500, 100_000])('refuses a variable nested %i levels over POST: 400 naming the limit', async (depth) => {
    const r = await postText(base(), `{"query":${JSON.stringify(query)},"variables":${deepVariables(depth)}}`);
    expect({ status: r.status, ...refusalOf(r.body) }).toEqual({ status: 400, ...tooDeep });
  });

  it('refuses a variable nested 4,500 levels over GET (JSON text in the URL): 400 naming the limit', async () => {
    const r = await get(
      base(),
      query,
      query === PASSAGES ? `{"k":${deepText(4500)}}` : `{"input":{"query":"x","files":${deepText(4500)}}}`,
    );
    expect({ status: r.status, ...refusalOf(r.body) }).toEqual({ status: 400, ...tooDeep });
  });

  it('refuses a GET whose extensions parameter nests 4,500 levels, naming the limit', async () => {
    const res = await fetch(`${base()}/graphql?query=${encodeURIComponent('{ __typename }')}&extensions={"x":${deepText(4500)}}`, {
      headers: { 'apollo-require-preflight': '1' },
    });
    expect({ status: res.status, ...refusalOf(await res.json()) }).toEqual({ status: 400, ...tooDeep });
  });

  it('refuses variables holding more values than GRAPHQL_MAX_VARIABLE_VALUES over POST and GET', async () => {
    const many = { input: { query: 'x', files: Array.from({ length: MAX_VALUES + 1 }, (_, i) => `f${i}.txt`) } };
    const posted = await postText(base(), JSON.stringify({ query, variables: many }));
    expect({ status: posted.status, ...refusalOf(posted.body) }).toEqual({ status: 400, ...tooLarge });
    const got = await get(base(), query, encodeURIComponent(JSON.stringify(many)));
    expect({ status: got.status, ...refusalOf(got.body) }).toEqual({ status: 400, ...tooLarge });
  });

  it('serves variables within the bounds (nested 40 levels, under the values bound)', async () => {
    const r = await postText(base(), JSON.stringify({ query: TYPE, variables: { name: 'Query', unused: deepObject(40) } }));
    expect(r).toEqual({ status: 200, body: { data: { __type: { name: 'Query' } } } });
  });
});

describe.each([
  ['the gateway', 'gateway'],
  ['chat served alone', 'chat'],
])('over graphql-ws on %s', (_name, role) => {
  it.each([4500, 100_000])('refuses a variable nested %i levels, naming the limit', async (depth) => {
    const m = await rawSubscribe(
      servers[role].url,
      `{"query":${JSON.stringify(STREAM)},"variables":{"input":{"query":"x","files":${deepText(depth)}}}}`,
    );
    expect(m.type).toBe('error');
    expect(refusalOf({ errors: m.payload })).toEqual(tooDeep);
  });

  it('refuses variables holding too many values, naming the limit', async () => {
    const many = await overSocket(servers[role].url, STREAM, {
      input: { query: 'x', files: Array.from({ length: MAX_VALUES + 1 }, () => 'a.txt') },
    });
    expect(many.results).toEqual([]);
    expect({ code: many.error?.extensions?.code, reason: many.error?.extensions?.reason, message: many.error?.message }).toEqual(tooLarge);
  });

  it('still answers an operation with ordinary variables', async () => {
    const r = await overSocket(servers[role].url, TYPE, { name: 'Subscription' });
    expect({ results: r.results, error: r.error }).toEqual({ results: [{ data: { __type: { name: 'Subscription' } } }], error: undefined });
  });
});

describe('over GraphQL over SSE and multipart at the gateway', () => {
  const transports = [
    ['SSE', 'text/event-stream'],
    ['multipart', 'multipart/mixed;subscriptionSpec=1.0'],
  ] as const;

  it.each(transports)('%s: a variable nested 4,500 levels is a 400 naming the limit', async (_t, accept) => {
    const r = await postText(
      servers.gateway.url,
      `{"query":${JSON.stringify(STREAM)},"variables":{"input":{"query":"x","files":${deepText(4500)}}}}`,
      accept,
    );
    expect({ status: r.status, ...refusalOf(r.body) }).toEqual({ status: 400, ...tooDeep });
  });

  it.each(transports)('%s: variables holding too many values are a 400 naming the limit', async (_t, accept) => {
    const variables = { input: { query: 'x', files: Array.from({ length: MAX_VALUES + 1 }, () => 'a.txt') } };
    const res = await postOperation(servers.gateway.url, { query: STREAM, variables }, { accept });
    expect({ status: res.status, ...refusalOf(await res.json()) }).toEqual({ status: 400, ...tooLarge });
  });

  it('multipart still streams with ordinary variables (the refusal comes from the bound, not the transport)', async () => {
    const res = await postOperation(
      servers.gateway.url,
      { query: STREAM, variables: { input: { query: 'x' } } },
      { accept: 'multipart/mixed;subscriptionSpec=1.0' },
    );
    expect(res.status).toBe(200);
    const { parts } = multipartParts(await res.text());
    // No credentials: the subscription ends with the chat subgraph's UNAUTHENTICATED, which is not the bound.
    expect(JSON.stringify(parts)).not.toMatch(/json_too_deep|variables_too_large|INTERNAL_SERVER_ERROR/);
  });
});
