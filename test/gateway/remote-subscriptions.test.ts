import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { WebSocketServer } from 'ws';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { post, sseChunks, type Chunk } from '../e2e/chat/wire';
import { freePort, startInTemp, type Started } from '../e2e/shared/server';
import {
  ANSWER_STREAM,
  expectStreamedAnswer,
  multipartParts,
  postOperation,
  run,
  socketClient,
  sseResults,
  type Result,
} from '../e2e/shared/subscription-wire';
import { startFakeOpenAi, type FakeOpenAi } from '../shared/fakes/openai-upstream';
import { leaveEveryWay } from './leaving';

/**
 * Subscriptions through a gateway served alone in front of subgraphs served alone (`platform serve
 * <name>`), each its own server: the gateway reaches chat over graphql-ws with the caller's
 * credentials, and completes each event from the search and models subgraphs over HTTP. The
 * services share the data of a platform (the fixture) that issued the tokens, the LM key and the
 * documents, so the answers can be compared with its REST stream.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let rest: Chunk[];
const alone: Record<string, Started> = {};
let gateway: Started;
let catalogFile: string;

const ASPIRIN = 'What are the side effects of aspirin?';
const TALKATIVE = 'One two three four five six seven eight nine ten eleven twelve.';

/** A gateway's settings in front of the parts (and, as the README's parts.env gives every part, the issuer of the tokens it checks). */
const subgraphUrls = (chatUrl: string) => ({
  AUTH_ISSUER_URL: f.url,
  SUBGRAPH_TOKEN_URL: `${alone.token.url}/graphql`,
  SUBGRAPH_SEARCH_URL: `${alone.search.url}/graphql`,
  SUBGRAPH_MODELS_URL: `${alone.models.url}/graphql`,
  SUBGRAPH_CHAT_URL: chatUrl,
});

beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'The upstream says aspirin upsets the stomach.' });
  process.env.E2E_GW_REMOTE_OC_KEY = 'gateway-remote-oc-token-0123456789';
  catalogFile = join(tmpdir(), `catalog-gw-remote-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    catalogFile,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'oc-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 4096,
          upstream: {
            provider: 'openai-compatible',
            baseUrl: `${upstream.url}/v1`,
            model: 'llama3.2',
            credentialEnv: 'E2E_GW_REMOTE_OC_KEY',
          },
        },
      ],
    }),
  );
  f = await chatFixture({ MODELS_CATALOG_FILE: catalogFile });
  rest = sseChunks((await post(`${f.url}/api/stream_generate_answer`, f.body(ASPIRIN))).text).chunks;
  const shared = { PLATFORM_DATA_DIR: f.platform.dataDir, AUTH_ISSUER_URL: f.url, LOG_LEVEL: 'silent' };
  for (const name of ['token', 'search', 'models'] as const) {
    alone[name] = await startInTemp(name, { ...shared, MODELS_CATALOG_FILE: catalogFile });
  }
  alone.chat = await startInTemp('chat', { ...shared, SEARCH_URL: alone.search.url, MODELS_URL: alone.models.url });
  gateway = await startInTemp('gateway', { ...subgraphUrls(`${alone.chat.url}/graphql`), GRAPHQL_KEEPALIVE_MS: '200' });
}, 90_000);
afterAll(async () => {
  await gateway?.stop();
  for (const s of Object.values(alone).reverse()) await s.stop();
  await f?.stop();
  await upstream?.close();
  rmSync(catalogFile, { force: true });
  delete process.env.E2E_GW_REMOTE_OC_KEY;
});

const clients: Client[] = [];
const connect = (base: string, params: Record<string, string | undefined>, keepOpen = false) => {
  const c = socketClient(base, params, keepOpen);
  clients.push(c);
  return c;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
});
const user = () => ({ authorization: f.a, 'api-key': f.apiKey });

it('streams the answer over graphql-ws, titled by the search subgraph and described by the models subgraph, each over the network', async () => {
  const { results, error } = await run(connect(gateway.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN } });
  expect(error).toBeUndefined();
  expectStreamedAnswer(results, rest);
});

it('serves ten subscribers at once, each its whole answer', async () => {
  const all = await Promise.all(
    Array.from({ length: 10 }, () => run(connect(gateway.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN } })),
  );
  for (const { results, error } of all) {
    expect(error).toBeUndefined();
    expectStreamedAnswer(results, rest);
  }
});

it('streams over GraphQL over SSE and the multipart protocol as well', async () => {
  const body = { query: ANSWER_STREAM, variables: { input: { query: ASPIRIN } } };
  const sse = sseResults(await (await postOperation(gateway.url, body, { accept: 'text/event-stream', ...user() })).text());
  expect(sse.complete).toBe(true);
  expectStreamedAnswer(sse.results, rest);
  const parts = multipartParts(
    await (await postOperation(gateway.url, body, { accept: 'multipart/mixed;subscriptionSpec=1.0', ...user() })).text(),
  );
  expect(parts.closed).toBe(true);
  expectStreamedAnswer(
    parts.parts.filter((p) => 'payload' in p).map((p) => p.payload as Result),
    rest,
  );
});

it("carries the caller's credentials to the chat subgraph: none is UNAUTHENTICATED, another tenant FORBIDDEN, both naming chat", async () => {
  const none = await run(connect(gateway.url, { 'api-key': f.apiKey }), ANSWER_STREAM, { input: { query: ASPIRIN } });
  expect(none.results).toEqual([
    { errors: [expect.objectContaining({ message: 'Not authenticated', extensions: { code: 'UNAUTHENTICATED', serviceName: 'chat' } })] },
  ]);
  const other = await run(connect(gateway.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN, tenantId: 'tenant-b' } });
  expect(other.results[0].errors![0].extensions).toMatchObject({ code: 'FORBIDDEN', serviceName: 'chat' });
  const unknown = await run(connect(gateway.url, user()), 'subscription { answerStream(input: {query: "x"}) { nope } }', {});
  expect(unknown.error).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
});

it('ends the model call behind a remote chat subgraph when the subscriber completes or goes away', async () => {
  const input = { query: ASPIRIN, modelId: 'oc-chat' };
  upstream.script({ answer: TALKATIVE, stallAfter: 3 });
  const { results } = await run(connect(gateway.url, user(), true), ANSWER_STREAM, { input }, (_r, stop) => stop());
  expect(results[0].data.answerStream).toMatchObject({ response: 'One two three ', model: { id: 'oc-chat', contextLength: 4096 } });
  await upstream.requests.at(-1)!.cut;

  upstream.script({ answer: TALKATIVE, stallAfter: 3 });
  const client = connect(gateway.url, user(), true);
  await run(client, ANSWER_STREAM, { input }, () => client.terminate());
  await upstream.requests.at(-1)!.cut;
});

it("streams the models subgraph's chatStream from models served alone; completing it ends the model call there", async () => {
  const stream = 'subscription($input: ChatInput!) { chatStream(input: $input) { content contentSoFar finishReason model { id } } }';
  const input = { model: 'local-chat', messages: [{ role: 'USER', content: ASPIRIN }] };
  const { results, error } = await run(connect(gateway.url, { 'api-key': f.apiKey }), stream, { input });
  expect(error).toBeUndefined();
  expect(results.every((r) => r.errors === undefined)).toBe(true);
  const chunks = results.map((r) => r.data.chatStream);
  expect(chunks.length).toBeGreaterThan(2);
  expect(chunks[0].model).toEqual({ id: 'local-chat' });
  expect(chunks.at(-1)).toMatchObject({ content: '', finishReason: 'STOP', contentSoFar: chunks.map((c) => c.content).join('') });

  upstream.script({ answer: TALKATIVE, stallAfter: 3 });
  const stopped = await run(
    connect(gateway.url, { 'api-key': f.apiKey }, true),
    stream,
    { input: { ...input, model: 'oc-chat' } },
    (_r, stop) => stop(),
  );
  expect(stopped.results[0].data.chatStream).toMatchObject({ content: 'One two three ', finishReason: null });
  await upstream.requests.at(-1)!.cut;
});

// Over SSE, and a generateAnswer mutation whose remote fetch the gateway aborts, so the chat subgraph sees its request closed.
leaveEveryWay(() => ({ base: gateway.url, upstream, headers: user() }));

it('ends a subscription with an UPSTREAM_ERROR naming chat when the chat subgraph is down, or goes down midway', async () => {
  const nowhere = await startInTemp('gateway', subgraphUrls(`http://127.0.0.1:${await freePort()}/graphql`));
  const mortal = await startInTemp('chat', {
    PLATFORM_DATA_DIR: f.platform.dataDir,
    AUTH_ISSUER_URL: f.url,
    SEARCH_URL: alone.search.url,
    MODELS_URL: alone.models.url,
  });
  const doomed = await startInTemp('gateway', subgraphUrls(`${mortal.url}/graphql`));
  try {
    const down = await run(connect(nowhere.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN } });
    expect(down.error).toBeUndefined();
    expect(down.results).toEqual([
      { errors: [{ message: 'The chat subgraph is unavailable', extensions: { code: 'UPSTREAM_ERROR', serviceName: 'chat' } }] },
    ]);

    upstream.script({ answer: TALKATIVE, stallAfter: 3 });
    let first!: () => void;
    const started = new Promise<void>((resolve) => (first = resolve));
    const streaming = run(connect(doomed.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN, modelId: 'oc-chat' } }, () => first());
    await started;
    await mortal.stop();
    const { results, error } = await streaming;
    expect(error).toBeUndefined();
    expect(results[0].data.answerStream.response).toBe('One two three ');
    expect(results.at(-1)!.errors).toEqual([expect.objectContaining({ extensions: { code: 'UPSTREAM_ERROR', serviceName: 'chat' } })]);
    expect(results.at(-1)!.errors![0].message).toMatch(/^The chat subgraph closed the subscription \(1001/);
  } finally {
    await nowhere.stop();
    await doomed.stop();
    await mortal.stop().catch(() => undefined);
  }
});

it('gives up on a chat subgraph that takes the socket but never acknowledges it, after GRAPHQL_SUBGRAPH_TIMEOUT_MS', async () => {
  const mute = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'graphql-transport-ws' });
  await new Promise((resolve) => mute.once('listening', resolve));
  const port = (mute.address() as { port: number }).port;
  const slow = await startInTemp('gateway', { ...subgraphUrls(`http://127.0.0.1:${port}/graphql`), GRAPHQL_SUBGRAPH_TIMEOUT_MS: '300' });
  try {
    const { results, error } = await run(connect(slow.url, user()), ANSWER_STREAM, { input: { query: ASPIRIN } });
    expect(error).toBeUndefined();
    expect(results).toEqual([
      {
        errors: [
          {
            message: 'The chat subgraph did not accept the subscription in time',
            extensions: { code: 'UPSTREAM_ERROR', serviceName: 'chat' },
          },
        ],
      },
    ]);
  } finally {
    await slow.stop();
    for (const c of mute.clients) c.terminate();
    await new Promise((resolve) => mute.close(resolve));
  }
});
