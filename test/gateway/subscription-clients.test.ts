import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { Client as UrqlClient, fetchExchange, type OperationResult } from '@urql/core';
import { parse } from 'graphql';
import { createClient as sseClient } from 'graphql-sse';
import type { ChatFixture } from '../e2e/chat/fixture';
import type { Chunk } from '../e2e/chat/wire';
import type { FakeOpenAi } from '../shared/fakes/openai-upstream';
import { answeringPlatform, ASPIRIN, type Answering } from './answering';
import { ANSWER_STREAM, expectStreamedAnswer, multipartParts, sseResults, type Result } from '../e2e/shared/subscription-wire';
import { TALKATIVE } from './leaving';

/**
 * GraphQL-over-HTTP subscription clients nobody here wrote, against a started platform: urql's
 * fetchSubscriptions (POST + SSE), graphql-tools' HTTP executor (GET + SSE), graphql-sse's client in
 * both its modes; each streams an answer to its end, and each way of stopping midway ends the model
 * call (the fake upstream, stalled after three pieces, sees its request cut). Then the Accept
 * negotiation with quality values, the CSRF rule, no mutation over GET, and the single connection
 * mode's ownership and bounds.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let rest: Chunk[];

const VARIABLES = { input: { query: ASPIRIN } };
const STALLING = { input: { query: ASPIRIN, modelId: 'oc-chat' } };

let platform: Answering;
beforeAll(async () => {
  platform = await answeringPlatform('gw-subclients', { GRAPHQL_KEEPALIVE_MS: '200' });
  ({ f, upstream, rest } = platform);
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const user = () => ({ authorization: f.a, 'api-key': f.apiKey });
const endpoint = () => `${f.url}/graphql`;
/** The model stalls after three pieces; resolves with its (next) request's cut once it comes. */
const stallNext = () => {
  const seen = upstream.requests.length;
  upstream.script({ answer: TALKATIVE, stallAfter: 3 });
  return async () => {
    while (upstream.requests.length <= seen) await new Promise((resolve) => setTimeout(resolve, 20));
    await upstream.requests[seen].cut;
  };
};

describe('urql (@urql/core 6, fetchSubscriptions)', () => {
  const urql = (headers: Record<string, string> = user()) =>
    new UrqlClient({ url: endpoint(), exchanges: [fetchExchange], fetchSubscriptions: true, fetchOptions: { headers } });

  it('streams an answer subscription to its end (POST, Accept: text/event-stream, multipart/mixed)', async () => {
    const results = await new Promise<OperationResult[]>((resolve) => {
      const got: OperationResult[] = [];
      urql()
        .subscription(ANSWER_STREAM, VARIABLES)
        .subscribe((r) => {
          got.push(r);
          if (r.hasNext === false) resolve(got);
        });
    });
    expect(results.every((r) => r.error === undefined)).toBe(true);
    // urql repeats the last event's data with hasNext false when the stream ends.
    expectStreamedAnswer(
      results.slice(0, -1).map((r) => ({ data: r.data })),
      rest,
    );
    expect(results.at(-1)!.data).toEqual(results.at(-2)!.data);
  });

  it('unsubscribing midway ends the model call', async () => {
    const cut = stallNext();
    let first!: (r: OperationResult) => void;
    const firstPiece = new Promise<OperationResult>((resolve) => (first = resolve));
    const { unsubscribe } = urql()
      .subscription(ANSWER_STREAM, STALLING)
      .subscribe((r) => first(r));
    expect((await firstPiece).data.answerStream.response).toBe('One two three ');
    // As an app does, not inside the very callback that delivered the result: urql 6 in Node, unsubscribed
    // while its fetch generator is paused on that result, leaves the fetch's AbortError unhandled.
    await new Promise((resolve) => setImmediate(resolve));
    unsubscribe();
    await cut();
  });

  it('a query by GET (preferGetMethod) is answered as JSON, given the preflight header the CSRF rule asks of a GET', async () => {
    const query = '{ sources(input: {query: "aspirin"}) { citations { document { title } } } }';
    const got = await new UrqlClient({
      url: endpoint(),
      exchanges: [fetchExchange],
      preferGetMethod: 'force',
      fetchOptions: { headers: { ...user(), 'apollo-require-preflight': 'true' } },
    })
      .query(query, {})
      .toPromise();
    expect(got.error).toBeUndefined();
    expect(got.data.sources.citations[0].document.title).toBe('Aspirin');
    const bare = await new UrqlClient({
      url: endpoint(),
      exchanges: [fetchExchange],
      preferGetMethod: 'force',
      fetchOptions: { headers: user() },
    })
      .query(query, {})
      .toPromise();
    expect(bare.error?.message).toMatch(/Cross-Site Request Forgery/);
  });
});

describe('@graphql-tools/executor-http 3 (GET + SSE)', () => {
  const executor = (headers: Record<string, string>) => buildHTTPExecutor({ endpoint: endpoint(), headers });

  it('streams an answer subscription to its end with the preflight header (or useContentTypeForGETRequests); without either the CSRF rule refuses the GET', async () => {
    const events = await executor({ ...user(), 'apollo-require-preflight': 'true' })({
      document: parse(ANSWER_STREAM),
      variables: VARIABLES,
    });
    const results: Result[] = [];
    for await (const r of events as AsyncIterable<Result>) results.push(r);
    expectStreamedAnswer(results, rest);
    const typed = await buildHTTPExecutor({ endpoint: endpoint(), headers: user(), useContentTypeForGETRequests: true })({
      document: parse(ANSWER_STREAM),
      variables: VARIABLES,
    });
    const again: Result[] = [];
    for await (const r of typed as AsyncIterable<Result>) again.push(r);
    expectStreamedAnswer(again, rest);

    const refused = await executor(user())({ document: parse(ANSWER_STREAM), variables: VARIABLES });
    const first = Symbol.asyncIterator in (refused as object) ? (await (refused as AsyncIterableIterator<Result>).next()).value : refused;
    expect(first).toEqual({
      errors: [
        expect.objectContaining({ message: expect.stringMatching(/Cross-Site Request Forgery/), extensions: { code: 'BAD_REQUEST' } }),
      ],
    });
  });

  it('its AbortSignal ends the model call', async () => {
    const cut = stallNext();
    const leave = new AbortController();
    const events = await executor({ ...user(), 'apollo-require-preflight': 'true' })({
      document: parse(ANSWER_STREAM),
      variables: STALLING,
      signal: leave.signal,
    });
    const it = (events as AsyncIterable<Result>)[Symbol.asyncIterator]();
    expect((await it.next()).value.data.answerStream.response).toBe('One two three ');
    leave.abort();
    await cut();
  });
});

describe("graphql-sse's client", () => {
  const stream = (singleConnection: boolean) =>
    new Promise<Result[]>((resolve, reject) => {
      const client = sseClient({ url: endpoint(), headers: user(), singleConnection, retryAttempts: 0 });
      const got: Result[] = [];
      client.subscribe<any>(
        { query: ANSWER_STREAM, variables: VARIABLES },
        {
          next: (r) => got.push(r as Result),
          error: (e) => reject(e),
          complete: () => {
            client.dispose();
            resolve(got);
          },
        },
      );
    });

  it('distinct connections: the whole answer', async () => {
    expectStreamedAnswer(await stream(false), rest);
  });

  it('single connection (singleConnection: true): the whole answer, then a dispose midway ends the model call', async () => {
    expectStreamedAnswer(await stream(true), rest);
    const cut = stallNext();
    const client = sseClient({ url: endpoint(), headers: user(), singleConnection: true, retryAttempts: 0 });
    const first = await new Promise<any>((resolve) => {
      client.subscribe<any>({ query: ANSWER_STREAM, variables: STALLING }, { next: resolve, error: resolve, complete: () => undefined });
    });
    expect(first.data.answerStream.response).toBe('One two three ');
    client.dispose();
    await cut();
  });

  it('single connection: completing one operation (DELETE) ends its model call while the stream stays open', async () => {
    const cut = stallNext();
    const client = sseClient({
      url: endpoint(),
      headers: user(),
      singleConnection: true,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
    });
    let first!: (r: any) => void;
    const firstPiece = new Promise<any>((resolve) => (first = resolve));
    const stop = client.subscribe<any>(
      { query: ANSWER_STREAM, variables: STALLING },
      { next: (r) => first(r), error: first, complete: () => undefined },
    );
    expect((await firstPiece).data.answerStream.response).toBe('One two three ');
    stop();
    await cut();
    // The same stream carries the next operation.
    const q = await new Promise<any>((resolve, reject) => {
      client.subscribe<any>(
        { query: '{ sources(input: {query: "aspirin"}) { citations { title } } }' },
        { next: resolve, error: reject, complete: () => undefined },
      );
    });
    expect(q.data.sources.citations[0].title).toBe('Aspirin');
    client.dispose();
  });
});

describe("the single connection mode's rules (its HTTP requests as graphql-sse sends them)", () => {
  const TOKEN = 'x-graphql-event-stream-token';
  const reserve = (headers: Record<string, string>) => fetch(endpoint(), { method: 'PUT', headers });

  it('a reservation needs a valid bearer token; the stream and its operations belong to the caller who reserved it', async () => {
    const none = await reserve({});
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await reserve({ authorization: 'Bearer not-a-token' })).status).toBe(401);

    const made = await reserve(user());
    expect(made.status).toBe(201);
    const token = await made.text();
    const other = { authorization: f.b, [TOKEN]: token };
    const stolen = await fetch(endpoint(), { headers: { ...other, accept: 'text/event-stream' } });
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as any).errors[0].extensions.code).toBe('STREAM_NOT_FOUND');
    const op = { query: '{ __typename }', extensions: { operationId: 'one' } };
    const sneaked = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...other, 'content-type': 'application/json' },
      body: JSON.stringify(op),
    });
    expect(sneaked.status).toBe(404);

    const leave = new AbortController();
    const opened = await fetch(endpoint(), { headers: { ...user(), [TOKEN]: token, accept: 'text/event-stream' }, signal: leave.signal });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await fetch(endpoint(), { headers: { ...user(), [TOKEN]: token, accept: 'text/event-stream' } })).status).toBe(409);
    const accepted = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...user(), [TOKEN]: token, 'content-type': 'application/json' },
      body: JSON.stringify(op),
    });
    expect(accepted.status).toBe(202);
    const reader = opened.body!.getReader();
    let text = '';
    while (!text.includes('event: complete')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('event: next\ndata: {"id":"one","payload":{"data":{"__typename":"Query"}}}');
    expect(text).toContain('event: complete\ndata: {"id":"one"}');
    const again = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...user(), [TOKEN]: token, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect([again.status, ((await again.json()) as any).errors[0].message]).toEqual([
      400,
      expect.stringMatching(/Operation ID is missing/),
    ]);
    leave.abort();
  });

  it('bounds the streams one caller holds (10), reserved or open', async () => {
    const tokens: string[] = [];
    for (;;) {
      const r = await reserve({ authorization: f.b });
      if (r.status !== 201) {
        expect(r.status).toBe(429);
        expect(((await r.json()) as any).errors[0].message).toMatch(/At most 10 event streams/);
        break;
      }
      tokens.push(await r.text());
    }
    expect(tokens).toHaveLength(10);
    expect(new Set(tokens).size).toBe(10);
    expect((await reserve(user())).status).toBe(201);
  });
});

describe('Accept negotiation, the CSRF rule and GET', () => {
  const postAs = (accept: string, query: string, headers: Record<string, string> = {}) =>
    fetch(endpoint(), {
      method: 'POST',
      headers: { ...user(), 'content-type': 'application/json', accept, ...headers },
      body: JSON.stringify({ query, variables: VARIABLES }),
    });
  const QUERY = 'query($input: AskInput!) { sources(input: $input) { citations { title } } }';
  const typeOf = (res: Response) => res.headers.get('content-type')!.split(';')[0];

  it('takes SSE when text/event-stream is listed and preferred, by quality, then by order', async () => {
    const subscribed = await postAs('text/event-stream;q=0.9, application/json', ANSWER_STREAM);
    expect(typeOf(subscribed)).toBe('text/event-stream');
    expectStreamedAnswer(sseResults(await subscribed.text()).results, rest);
    // A query asked the same way is JSON, the client's first choice.
    const asked = await postAs('text/event-stream;q=0.9, application/json', QUERY);
    expect([typeOf(asked), ((await asked.json()) as any).data.sources.citations[0].title]).toEqual(['application/json', 'Aspirin']);
    const preferred = await postAs('application/json;q=0.5, text/event-stream', QUERY);
    expect(typeOf(preferred)).toBe('text/event-stream');
    const { results, complete } = sseResults(await preferred.text());
    expect([results.length, complete, results[0].data.sources.citations[0].title]).toEqual([1, true, 'Aspirin']);

    const tie = await postAs('multipart/mixed;subscriptionSpec="1.0", text/event-stream', ANSWER_STREAM);
    expect(typeOf(tie)).toBe('multipart/mixed');
    expect(multipartParts(await tie.text()).closed).toBe(true);
    const lower = await postAs('text/event-stream, multipart/mixed;subscriptionSpec=1.0;q=0.5', ANSWER_STREAM);
    expect(typeOf(lower)).toBe('text/event-stream');
    await lower.text();
    const refused = await postAs('text/event-stream;q=0, application/json', ANSWER_STREAM);
    expect([refused.status, ((await refused.json()) as any).errors[0].extensions.code]).toEqual([400, 'SUBSCRIPTIONS_NOT_SUPPORTED']);
  });

  it("GET with SSE needs a preflight header or a non-form content type (Apollo's CSRF rule); a mutation is never run by GET", async () => {
    const url = (query: string, variables: unknown = VARIABLES) =>
      `${endpoint()}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
    const sse = { ...user(), accept: 'text/event-stream' };
    const bare = await fetch(url(ANSWER_STREAM), { headers: sse });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as any).errors[0]).toMatchObject({
      message: expect.stringMatching(/Cross-Site Request Forgery/),
      extensions: { code: 'BAD_REQUEST' },
    });
    const form = await fetch(url(ANSWER_STREAM), { headers: { ...sse, 'content-type': 'text/plain' } });
    expect(form.status).toBe(400);
    for (const extra of [
      { 'apollo-require-preflight': 'true' },
      { 'x-apollo-operation-name': 'Answer' },
      { 'content-type': 'application/json' },
    ] as Record<string, string>[]) {
      const res = await fetch(url(ANSWER_STREAM), { headers: { ...sse, ...extra } });
      expect(res.status).toBe(200);
      expectStreamedAnswer(sseResults(await res.text()).results, rest);
    }
    const posted = await fetch(endpoint(), {
      method: 'POST',
      headers: { ...sse, 'content-type': 'text/plain' },
      body: JSON.stringify({ query: ANSWER_STREAM, variables: VARIABLES }),
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toMatch(/Cross-Site Request Forgery/);

    const MUTATION = 'mutation($input: AskInput!) { generateAnswer(input: $input) { response } }';
    const before = upstream.requests.length;
    for (const accept of ['text/event-stream', 'application/json']) {
      const res = await fetch(url(MUTATION, STALLING), { headers: { ...user(), accept, 'apollo-require-preflight': 'true' } });
      expect([res.status, res.headers.get('allow'), ((await res.json()) as any).errors[0].extensions.code]).toEqual([
        405,
        'POST',
        'BAD_REQUEST',
      ]);
    }
    expect(upstream.requests.length).toBe(before);
  });
});
