import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { telemetryGraph, until, type TelemetryGraph } from './telemetry-graph';
import { readUntil } from '../shared/sse';

/**
 * The gateway's operation metrics, black-box over HTTP and WebSocket against a started gateway
 * with Prometheus metrics: platform_graphql_operations_total and _operation_duration_seconds for
 * every operation on every transport, bounded operation names, and
 * platform_graphql_subscriptions_open{transport}, which must come back down however a subscription
 * ends: completed, the client leaving midway on each transport, the server stopping.
 */
const OPS = 'platform_graphql_operations_total';
const DURATION = 'platform_graphql_operation_duration_seconds_count';
const OPEN = 'platform_graphql_subscriptions_open';
const STREAMS = 'platform_http_streams_open';
const TICKS = 'subscription Ticks($n: Int!, $hold: Boolean) { ticks(count: $n, hold: $hold) { id label } }';

let g: TelemetryGraph;
beforeAll(async () => {
  g = await telemetryGraph();
});
afterAll(async () => {
  await g?.stop();
});

const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${g.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
const ops = (operation: string, type: string, outcome: string) => g.value(OPS, { operation, type, outcome });
const socket = (onSocket?: (s: WebSocket) => void): Client =>
  createClient({
    url: `${g.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    on: { connected: (s) => onSocket?.(s as WebSocket) },
  });

describe('queries and mutations', () => {
  it('a named query over POST is counted ok and timed', async () => {
    const before = await ops('Hello', 'query', 'ok');
    const r = await post({ query: 'query Hello { hello(name: "a") item(id: "7") { label } }' });
    expect(await r.json()).toEqual({ data: { hello: 'hello a', item: { label: 'item 7' } } });
    expect(await ops('Hello', 'query', 'ok')).toBe(before + 1);
    expect(await g.value(DURATION, { operation: 'Hello', type: 'query', outcome: 'ok' })).toBe(before + 1);
  });

  it('an answer with errors is outcome error; an anonymous mutation is `anonymous`; GET counts too', async () => {
    expect(((await (await post({ query: 'query Failing { fails hello }' })).json()) as any).errors).toHaveLength(1);
    expect(await ops('Failing', 'query', 'error')).toBe(1);
    expect(await ops('Failing', 'query', 'ok')).toBe(0);
    const before = await ops('anonymous', 'mutation', 'ok');
    expect(((await (await post({ query: 'mutation { poke }' })).json()) as any).data.poke).toBeGreaterThan(0);
    expect(await ops('anonymous', 'mutation', 'ok')).toBe(before + 1);
    const got = await fetch(`${g.url}/graphql?query=${encodeURIComponent('query ByGet { hello }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(got.status).toBe(200);
    expect(await ops('ByGet', 'query', 'ok')).toBe(1);
  });

  it('a query with @defer (the gateway runs it, not Apollo Server) is counted and timed once, whatever its parts', async () => {
    const query = 'query Later { hello ... @defer { item(id: "7") { label } } }';
    const parts = await (await post({ query }, { accept: 'multipart/mixed;deferSpec=20220824' })).text();
    expect(parts).toContain('"hasNext":false');
    expect(await (await post({ query })).json()).toEqual({ data: { hello: 'hello world', item: { label: 'item 7' } } });
    expect(await ops('Later', 'query', 'ok')).toBe(2);
    expect(await g.value(DURATION, { operation: 'Later', type: 'query', outcome: 'ok' })).toBe(2);
    // An error in a deferred part only: outcome error.
    const failing = await (await post({ query: 'query LaterFails { hello ... @defer { fails } }' }, { accept: 'multipart/mixed' })).text();
    expect(failing).toMatch(/"incremental":\[\{"data":\{"fails":null\},"path":\[\],"errors":\[/);
    expect(await ops('LaterFails', 'query', 'error')).toBe(1);
  });

  it('a request refused before it names an operation (syntax, validation, unknown name) is no operation', async () => {
    const before = await g.metric(OPS);
    expect((await post({ query: 'query Broken {' })).status).toBe(400);
    expect((await post({ query: 'query Invalid { nope }' })).status).toBe(400);
    expect((await post({ query: 'query A { hello }', operationName: 'B' })).status).toBe(400);
    expect(await g.metric(OPS)).toBe(before);
  });

  it('a query over graphql-ws and one over GraphQL over SSE are counted as over POST', async () => {
    const client = socket();
    const result = await new Promise((resolve, reject) => {
      client.subscribe({ query: 'query OverWs { hello }' }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(result).toEqual({ data: { hello: 'hello world' } });
    await client.dispose();
    expect(await ops('OverWs', 'query', 'ok')).toBe(1);
    const sse = await post({ query: 'query OverSse { hello }' }, { accept: 'text/event-stream' });
    expect(await sse.text()).toContain('event: complete');
    expect(await ops('OverSse', 'query', 'ok')).toBe(1);
    // No subscription was open on the way.
    expect(await g.value(OPEN, {})).toBe(0);
  });
});

describe('subscriptions', () => {
  it('the gauge has a series per transport from the start', async () => {
    const text = await g.metric(OPEN);
    for (const t of ['ws', 'sse', 'multipart']) expect(text).toContain(`${OPEN}{transport="${t}"} 0`);
  });

  it('graphql-ws: open while it runs, counted ok and timed over its life when it completes', async () => {
    const client = socket();
    const results: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      client.subscribe({ query: TICKS, variables: { n: 3 } }, { next: (r) => void results.push(r), error: reject, complete: resolve });
    });
    await client.dispose();
    expect(results).toEqual([1, 2, 3].map((i) => ({ data: { ticks: { id: String(i), label: `item ${i}` } } })));
    expect(await ops('Ticks', 'subscription', 'ok')).toBeGreaterThanOrEqual(1);
    expect(await g.value(OPEN, { transport: 'ws' })).toBe(0);
  });

  it('SSE and multipart: completed subscriptions are counted, and nothing stays open', async () => {
    const before = await ops('Ticks', 'subscription', 'ok');
    const sse = await (await post({ query: TICKS, variables: { n: 2 } }, { accept: 'text/event-stream' })).text();
    expect(sse.match(/event: next/g)).toHaveLength(2);
    const multipart = await (await post({ query: TICKS, variables: { n: 2 } }, { accept: 'multipart/mixed;subscriptionSpec=1.0' })).text();
    expect(multipart).toContain('"label":"item 2"');
    expect(await ops('Ticks', 'subscription', 'ok')).toBe(before + 2);
    expect(await g.value(OPEN, {})).toBe(0);
    await until(() => g.value(STREAMS, { route: '/graphql' }), 0);
  });

  describe("a client leaving midway brings the gauges back down (and ends the subgraph's stream)", () => {
    afterEach(async () => {
      await until(() => g.value(OPEN, {}), 0);
      await until(async () => g.seen.ticksOpen, 0);
      await until(() => g.value(STREAMS, { route: '/graphql' }), 0);
    });

    it('graphql-ws: the socket dropped', async () => {
      let held!: WebSocket;
      const client = socket((s) => (held = s));
      const first = new Promise((resolve) => {
        client.subscribe(
          { query: TICKS, variables: { n: 1, hold: true } },
          { next: resolve, error: () => undefined, complete: () => undefined },
        );
      });
      expect(await first).toEqual({ data: { ticks: { id: '1', label: 'item 1' } } });
      expect(await g.value(OPEN, { transport: 'ws' })).toBe(1);
      expect(g.seen.ticksOpen).toBe(1);
      held.terminate();
      await until(() => g.value(OPEN, { transport: 'ws' }), 0);
      await client.dispose();
    });

    it('graphql-ws: the client completing the subscription on an open socket', async () => {
      const client = socket();
      let stop!: () => void;
      const first = new Promise((resolve) => {
        stop = client.subscribe(
          { query: TICKS, variables: { n: 1, hold: true } },
          { next: resolve, error: () => undefined, complete: () => undefined },
        );
      });
      await first;
      expect(await g.value(OPEN, { transport: 'ws' })).toBe(1);
      stop();
      await until(() => g.value(OPEN, { transport: 'ws' }), 0);
      await client.dispose();
    });

    it.each([
      { name: 'GraphQL over SSE', transport: 'sse', accept: 'text/event-stream', first: 'event: next' },
      { name: 'multipart', transport: 'multipart', accept: 'multipart/mixed;subscriptionSpec=1.0', first: '"label":"item 1"' },
    ])('$name: the fetch aborted', async ({ transport, accept, first }) => {
      const leave = new AbortController();
      const res = await post({ query: TICKS, variables: { n: 1, hold: true } }, { accept }, leave.signal);
      await readUntil(res.body!, first);
      expect(await g.value(OPEN, { transport })).toBe(1);
      expect(await g.value(STREAMS, { route: '/graphql' })).toBe(1);
      leave.abort();
      await until(() => g.value(OPEN, { transport }), 0);
    });

    it.each([
      ['GraphQL over SSE', 'text/event-stream'],
      ['multipart', 'multipart/mixed;subscriptionSpec=1.0'],
    ])('%s: the client gone while the subscription was starting', async (_t, accept) => {
      const started = g.seen.ticksStarted;
      const before = g.seen.ticksAsked;
      const leave = new AbortController();
      const asked = post({ query: 'subscription { ticks(count: 0, hold: true, delayMs: 200) { id } }' }, { accept }, leave.signal);
      // Gone once the subscription is being opened (its resolver waits 200 ms before it opens).
      await until(async () => g.seen.ticksAsked, before + 1);
      leave.abort();
      await expect(asked).rejects.toThrow();
      // Opened after the client had gone: ended at once, never left waiting for an event that never comes.
      await until(async () => g.seen.ticksStarted, started + 1);
      await until(async () => g.seen.ticksOpen, 0);
    });

    it('GraphQL over SSE, single connection mode: the event stream closed', async () => {
      const auth = { authorization: 'Bearer leaver' };
      const token = await (await fetch(`${g.url}/graphql`, { method: 'PUT', headers: auth })).text();
      const leave = new AbortController();
      const stream = await fetch(`${g.url}/graphql`, {
        headers: { ...auth, accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
        signal: leave.signal,
      });
      expect(stream.status).toBe(200);
      const accepted = await post(
        { query: TICKS, variables: { n: 1, hold: true }, extensions: { operationId: 'op1' } },
        { ...auth, 'x-graphql-event-stream-token': token },
      );
      expect(accepted.status).toBe(202);
      await readUntil(stream.body!, '"label":"item 1"');
      expect(await g.value(OPEN, { transport: 'sse' })).toBe(1);
      leave.abort();
      await until(() => g.value(OPEN, { transport: 'sse' }), 0);
    });
  });
});

describe('operation names', () => {
  // A gateway of its own: the first 200 names a process sees keep their label.
  it('300 operation names leave at most 201 label values (200, then `other`); a name over 64 characters is `invalid`', async () => {
    const own = await telemetryGraph();
    const ask = (query: string) =>
      fetch(`${own.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    for (let i = 0; i < 300; i++) expect((await ask(`query Many${i} { hello }`)).status).toBe(200);
    const text = await own.metric(OPS);
    const names = new Set([...text.matchAll(/operation="([^"]+)"/g)].map((m) => m[1]));
    expect(names.size).toBe(201);
    expect(names.has('other')).toBe(true);
    expect(await own.value(OPS, { operation: 'other', type: 'query', outcome: 'ok' })).toBe(100);
    expect((await ask(`query ${'L'.repeat(65)} { hello }`)).status).toBe(200);
    expect(await own.value(OPS, { operation: 'invalid', type: 'query', outcome: 'ok' })).toBe(1);
    await own.stop();
  });
});

describe('the server stopping', () => {
  it('ends every open subscription: the gauge comes back to 0', async () => {
    const own = await telemetryGraph();
    const client = createClient({
      url: `${own.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    const first = new Promise((resolve) => {
      client.subscribe(
        { query: TICKS, variables: { n: 1, hold: true } },
        { next: resolve, error: () => undefined, complete: () => undefined },
      );
    });
    await first;
    const res = await fetch(`${own.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: TICKS, variables: { n: 1, hold: true } }),
    });
    await readUntil(res.body!, 'event: next');
    expect(await own.value(OPEN, {})).toBe(2);
    await own.stop();
    await until(() => own.value(OPEN, {}), 0);
    await until(async () => own.seen.ticksOpen, 0);
    expect(await own.value(STREAMS, { route: '/graphql' })).toBe(0);
    await client.dispose();
  });
});
