import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { ChatFixture } from '../e2e/chat/fixture';
import { joined, type Chunk } from '../e2e/chat/wire';
import type { FakeOpenAi } from '../shared/fakes/openai-upstream';
import { answeringPlatform, ASPIRIN, type Answering } from './answering';
import {
  ANSWER_STREAM,
  expectStreamedAnswer,
  multipartParts,
  postOperation,
  run,
  socketClient,
  sseResults,
  wsUrl,
  type Result,
} from '../e2e/shared/subscription-wire';

/**
 * Subscriptions at the gateway's /graphql, subgraphs in process: answerStream is the chat subgraph's,
 * its sources' documents are titled by the search subgraph and its model described by the models
 * subgraph, per event. Over graphql-ws, GraphQL over SSE and Apollo's multipart protocol.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let rest: Chunk[];

const STREAM = ANSWER_STREAM;

let platform: Answering;
beforeAll(async () => {
  platform = await answeringPlatform('gw-sub', { GRAPHQL_KEEPALIVE_MS: '200', GRAPHQL_WS_INIT_TIMEOUT_MS: '3000' });
  ({ f, upstream, rest } = platform);
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const clients: Client[] = [];
const connect = (params: Record<string, string | undefined>, keepOpen = false) => {
  const c = socketClient(f.url, params, keepOpen);
  clients.push(c);
  return c;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
});
const user = () => ({ authorization: f.a, 'api-key': f.apiKey });

const expectTheAnswer = (results: Result[]) => expectStreamedAnswer(results, rest);

describe('over graphql-ws', () => {
  it('streams an answer with its sources titled by the search subgraph and its model from the models subgraph', async () => {
    const { results, error } = await run(connect(user()), STREAM, { input: { query: ASPIRIN } });
    expect(error).toBeUndefined();
    expectTheAnswer(results);
  });

  it('reads the credentials of connection_init by any case of their names, as HTTP headers are', async () => {
    const { results, error } = await run(connect({ AUTHORIZATION: f.a, 'Api-Key': f.apiKey }), STREAM, { input: { query: ASPIRIN } });
    expect(error).toBeUndefined();
    expectTheAnswer(results);
  });

  it('runs queries and mutations over the same socket, across subgraphs', async () => {
    const client = connect(user());
    const q = await run(
      client,
      'query($input: AskInput!) { sources(input: $input) { model { id contextLength } citations { title document { title } } } }',
      { input: { query: ASPIRIN } },
    );
    expect(q.results[0].errors).toBeUndefined();
    expect(q.results[0].data.sources.model).toEqual({ id: 'local-chat', contextLength: 8192 });
    expect(q.results[0].data.sources.citations[0]).toEqual({ title: 'Aspirin', document: { title: 'Aspirin' } });
    const m = await run(client, 'mutation($input: AskInput!) { generateAnswer(input: $input) { response finishReason } }', {
      input: { query: ASPIRIN },
    });
    expect(m.results[0].data.generateAnswer).toEqual({ response: joined(rest), finishReason: 'STOP' });
  });

  it('fifty subscribers at once on one socket each, each gets the whole answer', async () => {
    const all = await Promise.all(Array.from({ length: 50 }, () => run(connect(user()), STREAM, { input: { query: ASPIRIN } })));
    for (const { results, error } of all) {
      expect(error).toBeUndefined();
      expectTheAnswer(results);
    }
  });

  it('ends the model call when the subscriber completes midway or its socket goes away', async () => {
    const stalling = () => upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const input = { query: ASPIRIN, modelId: 'oc-chat' };
    stalling();
    const { results } = await run(connect(user(), true), STREAM, { input }, (_r, stop) => stop());
    expect(results[0].data.answerStream).toMatchObject({
      response: 'One two three ',
      finishReason: null,
      model: { id: 'oc-chat', contextLength: 4096 },
    });
    const completed = upstream.requests.at(-1)!;
    await completed.cut;

    stalling();
    const client = connect(user(), true);
    await run(client, STREAM, { input }, () => client.terminate());
    const dropped = upstream.requests.at(-1)!;
    expect(dropped).not.toBe(completed);
    await dropped.cut;
  });

  it('answers an unauthorised subscription with an error naming the subgraph, an unknown field with a validation error', async () => {
    const none = await run(connect({ 'api-key': f.apiKey }), STREAM, { input: { query: ASPIRIN } });
    expect(none.results).toHaveLength(1);
    expect(none.results[0].errors).toEqual([
      expect.objectContaining({ message: 'Not authenticated', extensions: { code: 'UNAUTHENTICATED', serviceName: 'chat' } }),
    ]);
    const other = await run(connect(user()), STREAM, { input: { query: ASPIRIN, tenantId: 'tenant-b' } });
    expect(other.results[0].errors![0].extensions).toMatchObject({ code: 'FORBIDDEN', serviceName: 'chat' });
    const unknown = await run(connect(user()), 'subscription { nope }', {});
    expect(unknown.error).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    const deep = await run(
      connect(user()),
      `subscription { answerStream(input: {query: "x"}) { ${Array.from({ length: 31 }, (_, i) => `a${i}: response`).join(' ')} } }`,
      {},
    );
    expect(deep.error[0].extensions.code).toBe('TOO_MANY_ALIASES');
  });

  it('pings an idle socket (GRAPHQL_KEEPALIVE_MS) and closes one that never sends connection_init (4408)', async () => {
    const idle = new WebSocket(wsUrl(f.url), 'graphql-transport-ws');
    await new Promise((resolve) => idle.once('open', resolve));
    idle.send(JSON.stringify({ type: 'connection_init', payload: user() }));
    await new Promise((resolve) => idle.once('ping', resolve));
    expect(idle.readyState).toBe(WebSocket.OPEN);
    idle.close();

    const silent = new WebSocket(wsUrl(f.url), 'graphql-transport-ws');
    const [code, reason] = await new Promise<[number, string]>((resolve) => silent.once('close', (c, r) => resolve([c, String(r)])));
    expect({ code, reason }).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });
});

describe('over HTTP', () => {
  const headers = (accept: string, extra: Record<string, string | undefined> = {}) => ({ accept, ...user(), ...extra });

  it('GraphQL over SSE: next events then complete; queries too', async () => {
    const res = await postOperation(f.url, { query: STREAM, variables: { input: { query: ASPIRIN } } }, headers('text/event-stream'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { results, complete } = sseResults(await res.text());
    expect(complete).toBe(true);
    expectTheAnswer(results);
    const q = sseResults(
      await (
        await postOperation(
          f.url,
          { query: '{ sources(input: {query: "aspirin"}) { citations { document { title } } } }' },
          headers('text/event-stream'),
        )
      ).text(),
    );
    expect(q.results[0].data.sources.citations[0].document.title).toBe('Aspirin');
  });

  it('GraphQL over SSE refuses an invalid operation with a coded 400', async () => {
    const res = await postOperation(f.url, { query: 'subscription { nope }' }, headers('text/event-stream'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('SSE and multipart bound a hostile document as every other transport does, and the gateway goes on', async () => {
    const aliases = `subscription { answerStream(input: {query: "x"}) { ${Array.from({ length: 31 }, (_, i) => `a${i}: response`).join(' ')} } }`;
    const fine = 'subscription { answerStream(input: {query: "aspirin"}) { sources { document { id } } } }';
    const nested = `subscription { ${'{'.repeat(2000)} }`;
    for (const accept of ['text/event-stream', 'multipart/mixed;subscriptionSpec=1.0']) {
      const many = await postOperation(f.url, { query: aliases }, headers(accept));
      expect(many.status).toBe(400);
      expect(((await many.json()) as any).errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
      const broken = await postOperation(f.url, { query: nested }, headers(accept));
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as any).errors[0].extensions.code).toMatch(/^(GRAPHQL_PARSE_FAILED|QUERY_TOO_DEEP|QUERY_TOO_LARGE)$/);
      const served = await postOperation(f.url, { query: fine }, headers(accept));
      expect(served.status).toBe(200);
      expect(await served.text()).toContain('"document":{"id":"');
    }
  });

  it("multipart (Apollo Client's protocol): one part per event as {payload}, heartbeats, the closing boundary", async () => {
    const res = await postOperation(
      f.url,
      { query: STREAM, variables: { input: { query: ASPIRIN } } },
      headers('multipart/mixed;subscriptionSpec="1.0", application/json'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    const { parts, closed } = multipartParts(await res.text());
    expect(closed).toBe(true);
    expect(parts[0]).toEqual({});
    expectTheAnswer(parts.filter((p) => 'payload' in p).map((p) => p.payload));
  });

  it('multipart: an unauthorised subscription is one part with the errors; a client that leaves ends the model call', async () => {
    const res = await postOperation(
      f.url,
      { query: STREAM, variables: { input: { query: ASPIRIN } } },
      headers('multipart/mixed;subscriptionSpec=1.0', { authorization: undefined }),
    );
    const { parts, closed } = multipartParts(await res.text());
    expect(closed).toBe(true);
    expect(parts).toEqual([
      { payload: { errors: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', serviceName: 'chat' } })] } },
    ]);

    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const leave = new AbortController();
    const streaming = await postOperation(
      f.url,
      { query: STREAM, variables: { input: { query: ASPIRIN, modelId: 'oc-chat' } } },
      headers('multipart/mixed;subscriptionSpec=1.0'),
      leave.signal,
    );
    const reader = streaming.body!.getReader();
    let text = '';
    while (!text.includes('payload')) text += new TextDecoder().decode((await reader.read()).value);
    leave.abort();
    await upstream.requests.at(-1)!.cut;
  });

  it('multipart sends heartbeats while the answer stalls', async () => {
    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const leave = new AbortController();
    const streaming = await postOperation(
      f.url,
      { query: STREAM, variables: { input: { query: ASPIRIN, modelId: 'oc-chat' } } },
      headers('multipart/mixed;subscriptionSpec=1.0'),
      leave.signal,
    );
    const reader = streaming.body!.getReader();
    let text = '';
    // The answer's first piece, then heartbeats (every GRAPHQL_KEEPALIVE_MS) while the model stalls.
    const after = () => text.slice(text.indexOf('"payload"'));
    while (!text.includes('"payload"') || after().split('\r\n\r\n{}').length < 3)
      text += new TextDecoder().decode((await reader.read()).value);
    expect(multipartParts(text).parts[1]).toMatchObject({ payload: { data: { answerStream: { response: 'One two three ' } } } });
    leave.abort();
    await upstream.requests.at(-1)!.cut;
  });

  it('refuses a subscription in a plain JSON request, naming the transports that carry one', async () => {
    const res = await postOperation(f.url, { query: STREAM, variables: { input: { query: ASPIRIN } } }, headers('application/json'));
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.errors[0]).toMatchObject({
      extensions: { code: 'SUBSCRIPTIONS_NOT_SUPPORTED' },
      message: expect.stringMatching(/graphql-ws.*text\/event-stream.*multipart/),
    });
  });
});
