import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { recordSpans } from '../shared/telemetry';
import { telemetryGraph, until, type TelemetryGraph } from './telemetry-graph';

/**
 * The gateway's spans, recorded by a tracer provider of this test (AsyncLocalStorage context, W3C
 * propagation) into memory, through started gateways: `graphql <type> <operation>` around each
 * operation on every transport (over HTTP the request's own server span, renamed; over graphql-ws a
 * root, or the trace the operation's `extensions` or connection_init name), the subgraphs' own work
 * (their resolvers' spans) inside it: in process directly, remote inside a client span
 * `subgraph <name>` around each fetch and stream, through the `traceparent` the gateway sends.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const unrecord = recordSpans(provider);
afterAll(async () => {
  await provider.shutdown();
  unrecord();
});

const TICKS = 'subscription Ticks($n: Int!, $hold: Boolean) { ticks(count: $n, hold: $hold) { id label } }';
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;

const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const named = (name: string, spans = exporter.getFinishedSpans()) => spans.filter((s) => s.name === name);
const one = (name: string, spans?: ReadableSpan[]) => {
  const found = named(name, spans);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0];
};
/** Whether `span` descends from `ancestor` (through any spans between, Apollo's own included). */
function descends(span: ReadableSpan, ancestor: ReadableSpan, spans = exporter.getFinishedSpans()): boolean {
  const byId = new Map(spans.map((s) => [idOf(s), s]));
  for (let p = parentOf(span); p; p = byId.get(p) && parentOf(byId.get(p)!)) if (p === idOf(ancestor)) return true;
  return false;
}
const ofTrace = (traceId: string) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);

async function post(g: TelemetryGraph, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${g.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe.each([
  ['in process', false],
  ['remote', true],
])('subgraphs %s', (_where, remote) => {
  let g: TelemetryGraph;
  beforeAll(async () => {
    g = await telemetryGraph({ remote, tracing: true });
  });
  afterAll(async () => {
    await g?.stop();
  });
  beforeEach(() => exporter.reset());

  /** Where a subgraph's work hangs: remote, its fetch's client span (the operation's child); in process, the operation's span itself. */
  const hop = (subgraph: string, op: ReadableSpan, spans: ReadableSpan[]) => {
    if (!remote) {
      expect(named(`subgraph ${subgraph}`, spans)).toEqual([]);
      return op;
    }
    const fetch = one(`subgraph ${subgraph}`, spans);
    expect(fetch.kind).toBe(SpanKind.CLIENT);
    expect(descends(fetch, op, spans)).toBe(true);
    return fetch;
  };

  it("a query: one span for the HTTP request and its operation > (remote: subgraph alpha >) its resolver's span; beta's too", async () => {
    expect(await (await post(g, { query: 'query Hello { hello item(id: "2") { label } }' })).json()).toEqual({
      data: { hello: 'hello world', item: { label: 'item 2' } },
    });
    await until(async () => named('graphql query Hello').length + named('beta work').length, 2);
    const op = one('graphql query Hello');
    expect(op.kind).toBe(SpanKind.SERVER);
    expect(parentOf(op)).toBeUndefined();
    expect(op.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'Hello',
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    });
    if (remote) await until(async () => named('POST /graphql').length, 2);
    const spans = ofTrace(op.spanContext().traceId);
    const alpha = hop('alpha', op, spans);
    const beta = hop('beta', op, spans);
    expect(descends(one('alpha work', spans), alpha, spans)).toBe(true);
    expect(descends(one('beta work', spans), beta, spans)).toBe(true);
    if (remote) {
      // The subgraph's own server span continues the fetch's span, named in the request's traceparent.
      const continued = spans.filter((s) => s.name === 'POST /graphql');
      expect(continued.map(parentOf).sort()).toEqual([idOf(alpha), idOf(beta)].sort());
      expect(g.seen.traceparents).toContain(`00-${alpha.spanContext().traceId}-${idOf(alpha)}-01`);
    }
    expect(spans).toHaveLength(remote ? 7 : 3);
    // Nothing of the operation's text in its attributes.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('hello world');
  });

  it("fifty queries at once, each continuing its own caller's trace: every trace holds its own operation, fetches and resolvers' spans, none of another's", async () => {
    const callers = Array.from({ length: 50 }, (_, i) => ({
      i,
      trace: i.toString(16).padStart(32, 'a'),
      parent: (i + 1).toString(16).padStart(16, 'b'),
    }));
    const answers = await Promise.all(
      callers.map(({ i, trace, parent }) =>
        post(
          g,
          // A text of its own each: identical queries in flight would share one execution (dedupe.ts).
          { query: `query Hello { hello(name: "caller${i}") item(id: "${i}") { label } }` },
          { traceparent: `00-${trace}-${parent}-01` },
        ).then((r) => r.json()),
      ),
    );
    expect(answers).toEqual(callers.map(({ i }) => ({ data: { hello: `hello caller${i}`, item: { label: `item ${i}` } } })));
    await until(async () => named('graphql query Hello').length, 50);
    await until(async () => named('beta work').length, 50);
    if (remote) await until(async () => named('POST /graphql').length, 100);
    for (const { trace, parent } of callers) {
      const spans = ofTrace(trace);
      const op = one('graphql query Hello', spans);
      expect(parentOf(op)).toBe(parent);
      expect(descends(one('alpha work', spans), hop('alpha', op, spans), spans)).toBe(true);
      expect(descends(one('beta work', spans), hop('beta', op, spans), spans)).toBe(true);
      expect(spans).toHaveLength(remote ? 7 : 3);
    }
  });

  it("a failing query: its span (and, remote, the fetch's) marked failed", async () => {
    await post(g, { query: 'query Failing { fails }' });
    await until(async () => named('graphql query Failing').length, 1);
    expect(one('graphql query Failing').status.code).toBe(2);
    if (remote) {
      await until(async () => named('subgraph alpha').length, 1);
      expect(one('subgraph alpha').status.code).toBe(2);
    }
  });

  it("a subscription over SSE: its span (the request's) covers its life, the stream on alpha and each event's fetch from beta inside it", async () => {
    const text = await (await post(g, { query: TICKS, variables: { n: 2 } }, { accept: 'text/event-stream' })).text();
    expect(text.match(/event: next/g)).toHaveLength(2);
    await until(async () => named('graphql subscription Ticks').length, 1);
    const op = one('graphql subscription Ticks');
    expect(op.kind).toBe(SpanKind.SERVER);
    expect(op.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'http.route': '/graphql' });
    await until(async () => ofTrace(op.spanContext().traceId).filter((s) => s.name === 'beta work').length, 2);
    await until(async () => ofTrace(op.spanContext().traceId).filter((s) => s.name === 'alpha ticks').length, 1);
    const spans = ofTrace(op.spanContext().traceId);
    const stream = hop('alpha', op, spans);
    // Within the operation's life (durations: start and end times are only as exact as Date.now()).
    const nanos = (t: [number, number]) => t[0] * 1e9 + t[1];
    expect(nanos(stream.duration)).toBeLessThanOrEqual(nanos(op.duration));
    const fetches = spans.filter((s) => s.name === 'subgraph beta');
    expect(fetches).toHaveLength(remote ? 2 : 0);
    for (const f of fetches) expect(descends(f, op)).toBe(true);
    for (const w of spans.filter((s) => s.name === 'beta work')) expect(descends(w, op)).toBe(true);
    // The subgraph's subscribe resolver ran inside the stream's span (remote: through extensions.traceparent).
    expect(descends(one('alpha ticks', spans), stream)).toBe(true);
  });

  it('GraphQL over SSE, single connection: a query answered on the stream has a span of its own under the request that sent it (answered 202 first)', async () => {
    const auth = { authorization: 'Bearer single' };
    const token = await (await fetch(`${g.url}/graphql`, { method: 'PUT', headers: auth })).text();
    const stream = await fetch(`${g.url}/graphql`, {
      headers: { ...auth, accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
    });
    expect(stream.status).toBe(200);
    const sent = await post(
      g,
      { query: 'query OnStream { hello }', extensions: { operationId: 'q1' } },
      { ...auth, 'x-graphql-event-stream-token': token, traceparent: TRACEPARENT },
    );
    expect(sent.status).toBe(202);
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('event: complete')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('"hello":"hello world"');
    await reader.cancel();
    // The request that sent it continues the caller's trace (remote, the subgraph's own server span is in it too).
    const sender = () => ofTrace(TRACE).filter((s) => s.name === 'POST /graphql' && parentOf(s) === PARENT);
    await until(async () => named('graphql query OnStream').length + sender().length, 2);
    const op = one('graphql query OnStream');
    const [request] = sender();
    expect(request.attributes['http.response.status_code']).toBe(202);
    expect(op.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(op)).toBe(idOf(request));
  });

  it('graphql-ws: an operation is a root span, or continues the trace its extensions or connection_init name', async () => {
    const client = (params?: Record<string, unknown>) =>
      createClient({
        url: `${g.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: params,
      });
    const once = (
      c: ReturnType<typeof client>,
      payload: { query: string; extensions?: Record<string, unknown>; variables?: Record<string, unknown> },
    ) => new Promise<void>((resolve, reject) => c.subscribe(payload, { next: () => undefined, error: reject, complete: resolve }));

    const plain = client();
    await once(plain, { query: 'query Rooted { hello }' });
    await once(plain, { query: 'query Given { hello }', extensions: { traceparent: TRACEPARENT } });
    await once(plain, { query: TICKS, variables: { n: 1 }, extensions: { traceparent: TRACEPARENT } });
    await plain.dispose();
    const byInit = client({ traceparent: `00-${TRACE}-${'c'.repeat(16)}-01` });
    await once(byInit, { query: 'query ByInit { hello }' });
    await byInit.dispose();

    await until(async () => named('graphql subscription Ticks').length, 1);
    expect(parentOf(one('graphql query Rooted'))).toBeUndefined();
    for (const [name, parent] of [
      ['graphql query Given', PARENT],
      ['graphql subscription Ticks', PARENT],
      ['graphql query ByInit', 'c'.repeat(16)],
    ] as const) {
      const span = one(name);
      expect(span.spanContext().traceId).toBe(TRACE);
      expect(parentOf(span)).toBe(parent);
    }
    expect(
      descends(
        named('alpha work').find((s) => s.spanContext().traceId === TRACE)!,
        one('graphql query Given'),
      ),
    ).toBe(true);
  });

  it("identical queries in flight share one fetch: the others' spans it runs in link to the first one's, whose trace holds the work", async () => {
    const before = g.seen.traceparents.length;
    const slow = () => post(g, { query: '{ hello(name: "slow") }' }).then((r) => r.json());
    const answers = await Promise.all([slow(), slow(), slow()]);
    for (const a of answers) expect(a).toEqual({ data: { hello: 'hello slow' } });
    // Remote, the fetch's client span; in process, the operation's (the request's) span.
    const carrier = remote ? 'subgraph alpha' : 'graphql query anonymous';
    await until(async () => named(carrier).length, 3);
    const fetches = named(carrier);
    const [first, ...joined] = [...fetches].sort((a, b) => Number(a.links.length) - Number(b.links.length));
    expect(first.links).toEqual([]);
    expect(first.attributes.shared).toBeUndefined();
    for (const f of joined) {
      expect(f.links.map((l) => l.context.spanId)).toEqual([idOf(first)]);
      expect(f.attributes.shared).toBe(true);
      expect(f.spanContext().traceId).not.toBe(first.spanContext().traceId);
    }
    // The resolver ran once, in the first caller's trace.
    await until(async () => named('alpha work').length, 1);
    expect(descends(one('alpha work'), first)).toBe(true);
    if (remote) {
      // One exchange, which carried the first caller's fetch span.
      const sent = g.seen.traceparents.slice(before);
      expect(sent).toEqual([`00-${first.spanContext().traceId}-${idOf(first)}-01`]);
    }
  });
});
