import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { SpanKind } from '@opentelemetry/api';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import type { ModelsInstance } from '../../services/models';
import { startInTemp, type Started } from '../e2e/shared/server';
import { startFakeOpenAi, type FakeOpenAi } from '../shared/fakes/openai-upstream';
import { recordSpans } from '../shared/telemetry';

/**
 * The whole platform started in this process (its subgraphs in process), a tracer provider of this
 * test recording into memory: a GraphQL operation whose resolver calls a model upstream. The
 * resolver's work (here the outbound exchange's client span, which the transport starts) is a
 * descendant of `graphql mutation Ask` (a fetch in process is a call, with no span of its own);
 * and the upstream got the trace as `traceparent`.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const unrecord = recordSpans(provider);

let p: Started;
let upstream: FakeOpenAi;
let apiKey: string;
beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'Traced words.', record: true });
  process.env.E2E_GW_TRACE_OC_KEY = 'gateway-trace-oc-token-0123456789';
  const file = join(tmpdir(), `catalog-gw-trace-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    file,
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
            credentialEnv: 'E2E_GW_TRACE_OC_KEY',
          },
        },
      ],
    }),
  );
  p = await startInTemp('all', { MODELS_CATALOG_FILE: file, METRICS_PORT: '0' }).finally(() => rmSync(file, { force: true }));
  ({ apiKey } = await (p.instances.models as unknown as ModelsInstance).keys.create({ name: 'trace-test', tenant: 'tenant-a' }));
}, 60_000);
afterAll(async () => {
  await p?.stop();
  await upstream?.close();
  await provider.shutdown();
  unrecord();
  delete process.env.E2E_GW_TRACE_OC_KEY;
});

const idOf = (s: ReadableSpan) => s.spanContext().spanId;
function ancestors(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [idOf(s), s]));
  const out: ReadableSpan[] = [];
  for (let s = byId.get(span.parentSpanContext?.spanId ?? ''); s; s = byId.get(s.parentSpanContext?.spanId ?? '')) out.push(s);
  return out;
}

it("the model call a resolver makes is inside the operation's span", async () => {
  const res = await fetch(`${p.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': apiKey },
    body: JSON.stringify({
      query: 'mutation Ask { chat(input: { model: "oc-chat", messages: [{ role: USER, content: "Say it." }] }) { content } }',
    }),
  });
  expect(await res.json()).toEqual({ data: { chat: { content: 'Traced words.' } } });
  const spans = exporter.getFinishedSpans();
  const op = spans.find((s) => s.name === 'graphql mutation Ask')!;
  expect(op).toBeDefined();
  const trace = spans.filter((s) => s.spanContext().traceId === op.spanContext().traceId);
  const call = trace.find((s) => s.kind === SpanKind.CLIENT && s.attributes['server.address'] === '127.0.0.1')!;
  expect(call).toBeDefined();
  const chain = ancestors(call, trace).map((s) => s.name);
  expect(chain.at(-1)).toBe('graphql mutation Ask');
  expect(chain).not.toContain('subgraph models');
  // The upstream was told the trace (the client span's own context).
  const sent = upstream.requests.at(-1)!.headers.traceparent;
  expect(sent).toBe(`00-${call.spanContext().traceId}-${idOf(call)}-01`);
});
