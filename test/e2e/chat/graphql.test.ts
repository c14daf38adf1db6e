import { request as httpRequest } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { chatFixture, type ChatFixture } from './fixture';
import { joined, post, sseChunks } from './wire';
import { startInTemp, type Started } from '../shared/server';
import { run, socketClient, type Result } from '../shared/subscription-wire';
import { eventually } from '../../shared/wait';

/**
 * The chat subgraph: through the platform's gateway (sources' titles from the search subgraph,
 * the model's fields from the models subgraph), and served alone (`platform serve chat`, its
 * search and model gateway those of the first platform over REST) with answerStream over
 * graphql-ws. `oc-chat` is a model on a fake OpenAI-compatible upstream, so a stream can stall.
 * End to end because what it tests needs started servers: the federation gateway, a second server
 * reaching the first over HTTP, WebSockets and upgrades on a real port, a server stopping under
 * open sockets.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let alone: Started;
let aloneStopped = false;

const ASPIRIN = 'What are the side effects of aspirin?';

beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'The upstream says aspirin upsets the stomach.' });
  process.env.E2E_CHAT_GQL_OC_KEY = 'chat-graphql-oc-token-0123456789';
  const file = join(tmpdir(), `catalog-chat-graphql-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'oc-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: {
            provider: 'openai-compatible',
            baseUrl: `${upstream.url}/v1`,
            model: 'llama3.2',
            credentialEnv: 'E2E_CHAT_GQL_OC_KEY',
          },
        },
      ],
    }),
  );
  f = await chatFixture({ MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
  alone = await startInTemp('chat', { AUTH_ISSUER_URL: f.url, SEARCH_URL: f.url, MODELS_URL: f.url });
}, 60_000);
afterAll(async () => {
  if (!aloneStopped) await alone?.stop();
  await f?.stop();
  await upstream?.close();
  delete process.env.E2E_CHAT_GQL_OC_KEY;
});

const SOURCE = 'citation title fileName category score text document { id title }';
const ANSWER = `mutation($input: AskInput!) { generateAnswer(input: $input) {
  response generatedSearchText finishReason model { id contextLength } sources { ${SOURCE} } } }`;
const SOURCES = `query($input: AskInput!) { sources(input: $input) {
  query searchText model { id } citations { citation title category document { id title } } searchTextResult context numNewUploads history { userQuery } } }`;
const STREAM =
  'subscription($input: AskInput!) { answerStream(input: $input) { response generatedSearchText finishReason sources { citation title document { id } } model { id } } }';

async function gql(base: string, query: string, input: Record<string, unknown>, headers: Record<string, string | undefined> = {}) {
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    authorization: f.a,
    'api-key': f.apiKey,
    ...headers,
  };
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify({ query, variables: { input } }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const codeOf = (r: { body: any }) => r.body.errors?.[0]?.extensions?.code;

describe('through the gateway', () => {
  it('generateAnswer: the REST answer, with its sources titled by the search subgraph and its model from the models subgraph', async () => {
    const rest = await f.call('POST', '/api/generate_answer', { body: f.body(ASPIRIN), auth: '' });
    const r = await gql(f.url, ANSWER, { query: ASPIRIN });
    expect(r.body.errors).toBeUndefined();
    const a = r.body.data.generateAnswer;
    expect(a).toMatchObject({
      response: rest.body.response,
      generatedSearchText: ASPIRIN,
      finishReason: 'STOP',
      model: { id: 'local-chat', contextLength: 8192 },
    });
    expect(a.sources.length).toBeGreaterThan(0);
    expect(a.sources.map((s: any) => s.citation)).toEqual(a.sources.map((_: unknown, i: number) => i + 1));
    // The title comes from the search subgraph's Document, resolved by id: the same as the passage's own.
    for (const s of a.sources) expect(s.document.title).toBe(s.title);
    expect(a.sources[0]).toMatchObject({ title: 'Aspirin', category: 'SEARCH', text: expect.stringContaining('stomach upset') });
    expect(a.sources.map((s: any) => s.title)).not.toContain('Secret of tenant b');
  });

  it('sources: what get_sources gives over REST', async () => {
    const rest = await f.call('POST', '/api/get_sources', {
      auth: '',
      body: { request: { ...(f.body(ASPIRIN).request as object), query: ASPIRIN }, bot_details: {}, chat_hist: [] },
    });
    expect(rest.status).toBe(200);
    const r = await gql(f.url, SOURCES, { query: ASPIRIN, history: [{ userQuery: 'Hello', response: 'Hi.' }] }, { 'api-key': undefined });
    expect(r.body.errors).toBeUndefined();
    const s = r.body.data.sources;
    expect(s).toMatchObject({
      query: ASPIRIN,
      searchText: ASPIRIN,
      model: { id: 'local-chat' },
      numNewUploads: 0,
      history: [{ userQuery: 'Hello' }],
    });
    expect(s.citations.map((c: any) => [c.citation, c.document.id, c.document.title])).toEqual(
      rest.body.sources.citations.map((c: any) => [c.citation, c.object_id, c.title]),
    );
    expect(s.searchTextResult).toBe(rest.body.sources.all_input_texts.search_text_result);
    expect(s.context).toContain('stomach upset');
  });

  it('refuses with the codes of the platform: no bearer, another tenant, a bad key, an unknown model, an empty query, a bad value', async () => {
    expect(codeOf(await gql(f.url, ANSWER, { query: ASPIRIN }, { authorization: undefined }))).toBe('UNAUTHENTICATED');
    expect(codeOf(await gql(f.url, ANSWER, { query: ASPIRIN, tenantId: 'tenant-b' }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(f.url, SOURCES, { query: ASPIRIN, tenantId: 'tenant-b' }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(f.url, ANSWER, { query: ASPIRIN }, { 'api-key': 'not-a-key' }))).toBe('UNAUTHENTICATED');
    expect(codeOf(await gql(f.url, ANSWER, { query: ASPIRIN }, { 'api-key': undefined }))).toBe('UNAUTHENTICATED');
    expect(codeOf(await gql(f.url, ANSWER, { query: ASPIRIN, modelId: 'no-such-model' }))).toBe('NOT_FOUND');
    const empty = await gql(f.url, ANSWER, { query: '  ' });
    expect(codeOf(empty)).toBe('BAD_USER_INPUT');
    expect(empty.body.errors[0].extensions.issues).toEqual([expect.objectContaining({ loc: ['input', 'query'], type: 'missing' })]);
    const hot = await gql(f.url, ANSWER, { query: ASPIRIN, temperature: 5, files: ['x'.repeat(2000)] });
    expect(codeOf(hot)).toBe('BAD_USER_INPUT');
    expect(hot.body.errors[0].extensions.issues.map((i: any) => i.loc)).toEqual(
      expect.arrayContaining([
        ['input', 'temperature'],
        ['input', 'files', 0],
      ]),
    );
    expect(hot.body.data).toEqual({ generateAnswer: null });
  });
});

/** One operation over a socket, its variables `{ input }`. */
const ask = (client: Client, query: string, input: Record<string, unknown>, onResult?: (r: Result, stop: () => void) => void) =>
  run(client, query, { input }, onResult);
const wsUrl = () => `${alone.url.replace(/^http/, 'ws')}/graphql`;
const clients: Client[] = [];
const connect = (connectionParams: Record<string, string>, keepOpen = false) => {
  const client = socketClient(alone.url, connectionParams, keepOpen);
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
});

describe('served alone: answerStream over graphql-ws', () => {
  const user = () => ({ authorization: f.a, 'api-key': f.apiKey });

  it('streams the chunks of the REST stream of the same server, in order: sources and model first, the finish reason last', async () => {
    const rest = sseChunks((await post(`${alone.url}/api/stream_generate_answer`, f.body(ASPIRIN))).text);
    expect(rest.done).toBe(true);
    const { results, error } = await ask(connect(user()), STREAM, { query: ASPIRIN });
    expect(error).toBeUndefined();
    expect(results.every((r) => r.errors === undefined)).toBe(true);
    const chunks = results.map((r) => r.data.answerStream);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.response)).toEqual(rest.chunks.map((c) => c.response));
    expect(chunks.map((c) => c.response).join('')).toBe(joined(rest.chunks));
    expect(chunks.every((c) => c.generatedSearchText === ASPIRIN)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.finishReason === null)).toBe(true);
    expect(chunks.at(-1).finishReason).toBe('STOP');
    expect(chunks[0].model).toEqual({ id: 'local-chat' });
    expect(chunks[0].sources[0]).toMatchObject({ citation: 1, title: 'Aspirin', document: { id: expect.any(String) } });
    expect(chunks.slice(1).every((c) => c.sources === null && c.model === null)).toBe(true);
  });

  it("takes Authorization and apiKey too, or the upgrade request's headers; queries and mutations work over the socket", async () => {
    const client = connect({ Authorization: f.a, apiKey: f.apiKey });
    const answer = await ask(client, 'mutation($input: AskInput!) { generateAnswer(input: $input) { response finishReason } }', {
      query: ASPIRIN,
    });
    expect(answer.results[0].data.generateAnswer).toMatchObject({
      response: expect.stringContaining('stomach upset'),
      finishReason: 'STOP',
    });
    const sources = await ask(client, 'query($input: AskInput!) { sources(input: $input) { citations { title } } }', { query: ASPIRIN });
    expect(sources.results[0].data.sources.citations[0].title).toBe('Aspirin');
    // A Node client can set headers on the upgrade request itself.
    class WithHeaders extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { authorization: f.a, 'api-key': f.apiKey } });
      }
    }
    const viaHeaders = createClient({ url: wsUrl(), webSocketImpl: WithHeaders, retryAttempts: 0, lazy: true });
    clients.push(viaHeaders);
    const streamed = await ask(viaHeaders, STREAM, { query: ASPIRIN });
    expect(streamed.results.at(-1)!.data.answerStream.finishReason).toBe('STOP');
  });

  it('stops the model call when the subscriber completes midway, or goes away: the upstream is cut and the gateway records a 499', async () => {
    const usage = async () => (await f.call('GET', '/proxy/api/v1/usage', { auth: '', headers: { 'api-key': f.apiKey } })).body;
    const errorsOf = (u: { by_model: { model: string; errors: number }[] }) => u.by_model.find((m) => m.model === 'oc-chat')?.errors ?? 0;
    const recorded = async (n: number) => {
      await eventually(async () => errorsOf(await usage()) >= n);
      return errorsOf(await usage());
    };
    const before = errorsOf(await usage());
    const stalling = () => upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const input = { query: ASPIRIN, modelId: 'oc-chat' };

    // Complete: the socket stays open (no lazy close), so only the operation's end can stop the call.
    stalling();
    const { results } = await ask(connect(user(), true), STREAM, input, (_r, stop) => stop());
    expect(results[0].data.answerStream).toMatchObject({ response: 'One two three ', finishReason: null, model: { id: 'oc-chat' } });
    const completed = upstream.requests.at(-1)!;
    await completed.cut;
    expect(await recorded(before + 1)).toBe(before + 1);

    // The socket goes away mid-stream, without completing.
    stalling();
    const client = connect(user(), true);
    await ask(client, STREAM, input, () => client.terminate());
    const dropped = upstream.requests.at(-1)!;
    expect(dropped).not.toBe(completed);
    await dropped.cut;
    expect(await recorded(before + 2)).toBe(before + 2);
  });

  it('answers a subscriber without a bearer token with UNAUTHENTICATED, refuses a bad one at connection_init (4403); another tenant is FORBIDDEN', async () => {
    const none = await ask(connect({ 'api-key': f.apiKey }), STREAM, { query: ASPIRIN });
    expect(none.results).toHaveLength(1);
    expect(none.results[0].data).toBeUndefined();
    expect(none.results[0].errors).toEqual([
      expect.objectContaining({ message: 'Not authenticated', path: ['answerStream'], extensions: { code: 'UNAUTHENTICATED' } }),
    ]);
    const bad = await ask(connect({ authorization: 'Bearer not.a.token', 'api-key': f.apiKey }), STREAM, { query: ASPIRIN });
    expect(bad.results).toEqual([]);
    expect({ code: bad.error.code, reason: bad.error.reason }).toEqual({ code: 4403, reason: 'Forbidden: Invalid token: malformed' });
    const other = await ask(connect(user()), STREAM, { query: ASPIRIN, tenantId: 'tenant-b' });
    expect(other.results[0].errors![0].extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'tenant_mismatch' });
    const empty = await ask(connect(user()), STREAM, { query: '' });
    expect(empty.results[0].errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ loc: ['input', 'query'] })],
    });
  });

  it('bounds socket operations as HTTP ones, and refuses invalid ones with an error message', async () => {
    const client = connect(user());
    const aliases = `subscription($input: AskInput!) { answerStream(input: $input) { ${Array.from({ length: 31 }, (_, i) => `a${i}: response`).join(' ')} } }`;
    const many = await ask(client, aliases, { query: ASPIRIN });
    expect(many.results).toEqual([]);
    expect(many.error).toEqual([
      expect.objectContaining({ message: 'The operation uses 31 aliases; the limit is 30', extensions: { code: 'TOO_MANY_ALIASES' } }),
    ]);
    const invalid = await ask(client, 'subscription { answerStream { nope } }', {});
    expect(invalid.error[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variables = await ask(client, STREAM, { query: 42 });
    expect(variables.results[0].errors![0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });

  it('closes a socket that sends no connection_init within the timeout (4408)', async () => {
    const started = Date.now();
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    const [code, reason] = await new Promise<[number, string]>((resolve) => socket.once('close', (c, r) => resolve([c, String(r)])));
    expect({ code, reason }).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    // A lower bound only: the server waits at least its 3 s timeout (a loaded machine only makes it later).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it('takes upgrades only at /graphql: another WebSocket path is answered as HTTP (404), and a GET offering h2c is answered as HTTP/1.1', async () => {
    const elsewhere = new WebSocket(`${alone.url.replace(/^http/, 'ws')}/nowhere`, 'graphql-transport-ws');
    const status = await new Promise<number | undefined>((resolve) => {
      elsewhere.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      elsewhere.once('open', () => resolve(101));
      elsewhere.once('error', () => undefined);
    });
    elsewhere.terminate();
    expect(status).toBe(404);
    const health = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${alone.url}/healthz`,
        { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA' } },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(health).toEqual({ status: 200, body: JSON.stringify({ msg: 'ok' }) });
  });

  it('closes open sockets with 1001 when the server stops, without waiting for their clients', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', (c) => resolve(c)));
    // A client that never answers the closing handshake (ws would wait 30 s for it): the stop ends it itself.
    const straggler = tcpConnect(alone.port, '127.0.0.1').on('error', () => undefined);
    let head = '';
    await new Promise<void>((resolve) =>
      straggler
        .on('data', (d) => ((head += String(d)), head.includes('\r\n\r\n') && resolve()))
        .write(
          'GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
        ),
    );
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    const cut = new Promise((resolve) => straggler.once('close', resolve));
    aloneStopped = true;
    await alone.stop();
    expect(await closed).toBe(1001);
    await cut;
    // Less than ws's own 30 s wait for the handshake: a stop that waited for the straggler times out.
  }, 25_000);
});

describe('served alone with GRAPHQL_INTROSPECTION=false', () => {
  it('refuses introspection over the socket as over HTTP, and still answers __typename', async () => {
    const closed = await startInTemp('chat', {
      AUTH_ISSUER_URL: f.url,
      SEARCH_URL: f.url,
      MODELS_URL: f.url,
      GRAPHQL_INTROSPECTION: 'false',
    });
    const client = createClient({
      url: `${closed.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: f.a },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const schema = await ask(client, '{ __schema { queryType { name } } }', {});
      expect(schema.error[0]).toMatchObject({
        message: expect.stringMatching(/introspection has been disabled/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      const typename = await ask(client, '{ __typename }', {});
      expect(typename.results[0]?.data).toEqual({ __typename: 'Query' });
    } finally {
      await client.dispose();
      await closed.stop();
    }
  });
});
