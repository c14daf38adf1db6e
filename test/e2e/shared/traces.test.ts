import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { newTraceparent, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../shared/telemetry';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { freePort, platformCli } from './server';
import { postOperation, sseResults } from './subscription-wire';

/**
 * OpenTelemetry traces as an operator's collector receives them (an OTLP/HTTP receiver in the
 * test): one request from the gateway through the chat subgraph, the search, the model call and
 * the vendor's HTTP request is one trace, continuing the caller's `traceparent`, and the vendor
 * receives it too. In one process (OTLP/JSON), and with the services apart (OTLP/protobuf), where
 * the trace crosses five processes over the REST clients and the remote subgraphs.
 */
const ASK = 'mutation Ask($q: String!) { generateAnswer(input: { query: $q, modelId: "up-chat" }) { response } }';
const STREAM = 'subscription Stream($q: String!) { answerStream(input: { query: $q, modelId: "up-chat" }) { response finishReason } }';

interface Setup {
  dir: string;
  upstream: FakeOpenAi;
  receiver: OtlpReceiver;
  env: Record<string, string>;
  boot: () => Record<string, string>;
}

async function setup(protocol: string): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-traces-'));
  const upstream = await startFakeOpenAi({ answer: 'Glaciers retreat because the climate warms [1].' });
  const receiver = await startOtlpReceiver();
  writeFileSync(
    join(dir, 'catalog.json'),
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'up-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1` },
        },
      ],
    }),
  );
  const env = {
    PLATFORM_DATA_DIR: join(dir, 'data'),
    WORKERS: '1',
    LOG_LEVEL: 'info',
    MODELS_CATALOG_FILE: join(dir, 'catalog.json'),
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  return { dir, upstream, receiver, env, boot: () => JSON.parse(readFileSync(join(dir, 'data', 'bootstrap.json'), 'utf8')) };
}

async function teardown(s: Setup | undefined, procs: PlatformProcess[]) {
  await Promise.all(procs.map((p) => stopProcess(p.child)));
  await s?.receiver.close();
  await s?.upstream.close();
  if (s) rmSync(s.dir, { recursive: true, force: true });
}

/** A token of the demo client and a document to ground answers in, through `base`'s REST paths. */
async function prepare(base: string, boot: Record<string, string>): Promise<string> {
  const t = await fetch(`${base}/auth/api/v1/oauth/connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret }),
  });
  const token = ((await t.json()) as { access_token: string }).access_token;
  const doc = await fetch(`${base}/cl/search/api/v2/objects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Glaciers', content: 'Glaciers retreat as the climate warms; their meltwater raises the sea.' }),
  });
  expect(doc.status).toBe(201);
  return token;
}

const named = (spans: ReceivedSpan[], re: RegExp) => spans.filter((s) => re.test(s.name));
/** The names of a span's ancestors received, nearest first. */
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const out: string[] = [];
  for (let at = spans.find((s) => s.spanId === span.parentSpanId); at; at = spans.find((s) => s.spanId === at.parentSpanId))
    out.push(at.name);
  return out;
}

/** What one answer's trace must hold, wherever the services run. */
function expectAnswerTrace(spans: ReceivedSpan[], operation: RegExp) {
  const [op] = named(spans, operation);
  const [chat] = named(spans, /^chat answer$/);
  const [search] = named(spans, /^search /);
  const [model] = named(spans, /^model .*up-chat$/);
  expect({ op: !!op, chat: !!chat, search: !!search, model: !!model }).toEqual({ op: true, chat: true, search: true, model: true });
  expect(ancestors(spans, chat)).toContain(op.name);
  expect(ancestors(spans, search)).toContain('chat answer');
  expect(ancestors(spans, model)).toContain('chat answer');
  // The vendor's HTTP request: a client span below the model call.
  const vendor = spans.find((s) => s.kind === 3 && ancestors(spans, s).includes(model.name));
  expect(vendor).toBeDefined();
}

/** Whether a trace is complete yet: spans of one trace arrive in several batches, from several processes. */
const answered =
  (traceId: string, operation: RegExp, more: (trace: ReceivedSpan[]) => boolean = () => true) =>
  (all: ReceivedSpan[]) => {
    const trace = all.filter((x) => x.traceId === traceId);
    try {
      expectAnswerTrace(trace, operation);
    } catch {
      return false;
    }
    return more(trace);
  };

describe('traces in one process (OTLP/JSON)', () => {
  let s: Setup;
  const procs: PlatformProcess[] = [];
  let p: PlatformProcess;
  let headers: Record<string, string>;

  beforeAll(async () => {
    s = await setup('http/json');
    p = await startPlatformProcess(['start'], { ...s.env, PORT: String(await freePort()) });
    procs.push(p);
    const token = await prepare(p.url, s.boot());
    headers = { authorization: `Bearer ${token}`, 'api-key': s.boot().api_key };
  }, 90_000);
  afterAll(() => teardown(s, procs));

  it("one trace from the caller's traceparent through the gateway, chat, search, the model call and the vendor", async () => {
    const { traceparent, traceId } = newTraceparent();
    const r = await postOperation(p.url, { query: ASK, variables: { q: 'Why do glaciers retreat?' } }, { ...headers, traceparent });
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).data.generateAnswer.response).toContain('Glaciers retreat');
    const spans = await s.receiver.waitFor(answered(traceId, /^graphql mutation Ask$/));
    const trace = spans.filter((x) => x.traceId === traceId);
    expectAnswerTrace(trace, /^graphql mutation Ask$/);
    // The request's server span is the operation's, named after it: it continues the caller's span
    // (its parent is the id the caller sent), and the chat subgraph's work runs straight inside it.
    const [op] = named(trace, /^graphql mutation Ask$/);
    expect(op).toMatchObject({ kind: 2, parentSpanId: traceparent.split('-')[2] });
    expect(named(trace, /^POST \/graphql$|^subgraph /)).toEqual([]);
    // @apollo/gateway's own spans are left out (the operation and subgraph spans say the same).
    expect(named(trace, /^gateway\./)).toEqual([]);
    expect(new Set(trace.map((x) => x.service))).toEqual(new Set(['ai-platform']));
    // The vendor got the trace in its request's headers.
    const call = s.upstream.requests.find((x) => x.path.endsWith('/chat/completions') && String(x.headers.traceparent).includes(traceId));
    expect(call?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(s.receiver.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    // No secret, prompt or answer in any attribute.
    expect(JSON.stringify(trace)).not.toMatch(/glaciers retreat|Bearer|client_secret/i);
  }, 60_000);

  it('a streamed answer (GraphQL over SSE) is one trace whose answer span lasts the whole stream', async () => {
    const { traceparent, traceId } = newTraceparent();
    // Another question: the same one would be answered from the gateway's cache, with no vendor call.
    const r = await postOperation(
      p.url,
      { query: STREAM, variables: { q: 'Where does the meltwater of glaciers go?' } },
      { ...headers, traceparent, accept: 'text/event-stream' },
    );
    const { results, complete } = sseResults(await r.text());
    expect(complete).toBe(true);
    expect(results.at(-1)?.data?.answerStream?.finishReason).toBeTruthy();
    const spans = await s.receiver.waitFor(answered(traceId, /^graphql subscription Stream$/));
    const trace = spans.filter((x) => x.traceId === traceId);
    expectAnswerTrace(trace, /^graphql subscription Stream$/);
  }, 60_000);

  it('writes the trace id into the log lines of the request', async () => {
    const { traceparent, traceId } = newTraceparent();
    await postOperation(p.url, { query: '{ __typename }' }, { traceparent });
    await s.receiver.waitFor((all) => all.some((x) => x.traceId === traceId));
    expect(p.output()).toMatch(new RegExp(`"trace_id":"${traceId}"`));
  }, 30_000);
});

describe('traces with the services apart (OTLP/protobuf): one trace across five processes', () => {
  let s: Setup;
  const procs: PlatformProcess[] = [];
  let gateway: PlatformProcess;
  let token: PlatformProcess;

  beforeAll(async () => {
    s = await setup('http/protobuf');
    expect(
      (await platformCli(s.env.PLATFORM_DATA_DIR, ['init'], undefined, { MODELS_CATALOG_FILE: s.env.MODELS_CATALOG_FILE })).status,
    ).toBe(0);
    const [tk, search, models, chat, gw] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    const at = (port: number) => `http://127.0.0.1:${port}`;
    const serve = async (name: string, port: number, env: Record<string, string> = {}) => {
      const proc = await startPlatformProcess(['serve', name, '--port', String(port)], { ...s.env, AUTH_ISSUER_URL: at(tk), ...env });
      procs.push(proc);
      return proc;
    };
    token = await serve('token', tk);
    await Promise.all([serve('search', search, { MODELS_URL: at(models) }), serve('models', models)]);
    await serve('chat', chat, { SEARCH_URL: at(search), MODELS_URL: at(models) });
    gateway = await serve('gateway', gw, {
      SUBGRAPH_TOKEN_URL: `${at(tk)}/graphql`,
      SUBGRAPH_SEARCH_URL: `${at(search)}/graphql`,
      SUBGRAPH_MODELS_URL: `${at(models)}/graphql`,
      SUBGRAPH_CHAT_URL: `${at(chat)}/graphql`,
    });
    // The document goes to the search service itself (the REST paths are each service's own).
    const t = await fetch(`${token.url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: s.boot().client_id, client_secret: s.boot().client_secret }),
    });
    const access = ((await t.json()) as { access_token: string }).access_token;
    const doc = await fetch(`${at(search)}/cl/search/api/v2/objects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Glaciers', content: 'Glaciers retreat as the climate warms; their meltwater raises the sea.' }),
    });
    expect(doc.status).toBe(201);
    s.env.ACCESS = access;
  }, 120_000);
  afterAll(() => teardown(s, procs));

  it("the gateway, the chat proxy, the search and the model gateway each add their spans to the caller's trace, and the vendor gets it", async () => {
    const { traceparent, traceId } = newTraceparent();
    const r = await postOperation(
      gateway.url,
      { query: ASK, variables: { q: 'Why do glaciers retreat?' } },
      { authorization: `Bearer ${s.env.ACCESS}`, 'api-key': s.boot().api_key, traceparent },
    );
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).data.generateAnswer.response).toContain('Glaciers retreat');
    const services = ['ai-platform-gateway', 'ai-platform-chat', 'ai-platform-search', 'ai-platform-models'];
    const spans = await s.receiver.waitFor(
      answered(traceId, /^graphql mutation Ask$/, (t) => services.every((svc) => t.some((x) => x.service === svc))),
    );
    const trace = spans.filter((x) => x.traceId === traceId);
    expectAnswerTrace(trace, /^graphql mutation Ask$/);
    // Each process's server span is the child of the previous process's client span.
    for (const server of trace.filter((x) => x.kind === 2 && x.service !== 'ai-platform-gateway')) {
      const parent = trace.find((x) => x.spanId === server.parentSpanId);
      expect(parent && { kind: parent.kind, other: parent.service !== server.service }).toEqual({ kind: 3, other: true });
    }
    expect(s.upstream.requests.some((x) => String(x.headers.traceparent).startsWith(`00-${traceId}-`))).toBe(true);
    expect(s.receiver.contentTypes.every((t) => t.startsWith('application/x-protobuf'))).toBe(true);
  }, 60_000);
});
