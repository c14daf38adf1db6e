import { gunzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, trace, type TracerProvider } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import protobuf from 'protobufjs';
import type { PrometheusMetrics } from '../../core/shared/telemetry/prometheus';

/**
 * What an operator's tools see of the platform, in tests: its /metrics parsed as Prometheus parses
 * the text format, and an OTLP/HTTP receiver (what a collector exposes at :4318) decoding both
 * encodings the platform sends, JSON and protobuf.
 */

/** One sample line: its metric name (with `_bucket`, `_sum`, `_count` for histograms), labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: string;
  samples: Sample[];
}

export interface Scrape {
  families: Family[];
  /** The sum of a counter's or gauge's samples, or of a histogram's `_count`s, whose labels include `labels`; 0 when none. */
  total(name: string, labels?: Record<string, string>): number;
  /** The label values of `label` present on `name`'s samples. */
  values(name: string, label: string): string[];
  has(name: string): boolean;
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;
const unescape = (v: string) => v.replace(/\\(n|\\|")/g, (_m, c: string) => (c === 'n' ? '\n' : c));

/**
 * Prometheus's text exposition format (version 0.0.4), strictly: `# HELP` and `# TYPE` lines open a
 * family, each sample line is `name{label="value",...} value`, label values escaped; anything
 * else is an error (so a malformed line fails the test, as it would fail a scrape).
 */
export function parseMetrics(text: string): Scrape {
  const families: Family[] = [];
  const byName = new Map<string, Family>();
  const open = (name: string) => {
    let f = byName.get(name);
    if (!f) {
      f = { name, help: '', type: 'untyped', samples: [] };
      byName.set(name, f);
      families.push(f);
    }
    return f;
  };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      const f = open(meta[2]);
      if (meta[1] === 'HELP') f.help = meta[3]!;
      else f.type = meta[3]!;
      continue;
    }
    if (line.startsWith('#')) continue;
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ([^ ]+)( -?\d+)?$/.exec(line);
    if (!head) throw new Error(`not the exposition format: ${line}`);
    const labels: Record<string, string> = {};
    if (head[3]) {
      LABEL.lastIndex = 0;
      let at = 0;
      for (let m = LABEL.exec(head[3]); m; m = LABEL.exec(head[3])) {
        labels[m[1]] = unescape(m[2]);
        at = LABEL.lastIndex;
      }
      if (at !== head[3].length) throw new Error(`bad labels: ${line}`);
    }
    // Go's ParseFloat, as Prometheus reads values: NaN and Inf in any case.
    const raw = head[4].toLowerCase();
    const value = raw === 'nan' ? NaN : /^[+-]?inf$/.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : Number(head[4]);
    if (Number.isNaN(value) && raw !== 'nan') throw new Error(`bad value: ${line}`);
    const name = head[1];
    const family = byName.get(name) ?? byName.get(name.replace(/_(bucket|sum|count)$/, '')) ?? open(name);
    family.samples.push({ name, labels, value });
  }
  const matching = (name: string, labels: Record<string, string>) => {
    const f = byName.get(name);
    const wanted = f?.type === 'histogram' ? `${name}_count` : name;
    return (f?.samples ?? []).filter((s) => s.name === wanted && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  };
  return {
    families,
    total: (name, labels = {}) => matching(name, labels).reduce((n, s) => n + s.value, 0),
    values: (name, label) => [
      ...new Set((byName.get(name)?.samples ?? []).map((s) => s.labels[label]).filter((v): v is string => v !== undefined)),
    ],
    has: (name) => byName.has(name),
  };
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

/** One span as a collector receives it, with its resource's service.name. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  contentTypes: string[];
  /** Resolves once spans satisfying `ok` have arrived (polls; fails after timeoutMs). */
  waitFor(ok: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// The parts of opentelemetry-proto's trace service request the tests read (field numbers as published).
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; }
`;
const Request = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: unknown; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue };
const valueOf = (v?: AnyValue) => v?.stringValue ?? v?.boolValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.doubleValue);
const attrs = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (v: unknown) => (typeof v === 'string' ? v : Buffer.from((v as Uint8Array) ?? []).toString('hex'));

/** Spans of one export request, decoded from OTLP/JSON (ids in hex) or protobuf (ids as bytes). */
function spansOf(body: Buffer, contentType: string): ReceivedSpan[] {
  const req = (
    contentType.includes('json')
      ? JSON.parse(body.toString('utf8'))
      : Request.toObject(Request.decode(body), { longs: String, bytes: Buffer, defaults: true })
  ) as {
    resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: any[] }[] }[];
  };
  return (req.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId ?? ''),
        name: s.name,
        kind: Number(s.kind),
        service,
        attributes: attrs(s.attributes),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      spans.push(...spansOf(body, type));
      // An empty ExportTraceServiceResponse: full success.
      if (type.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    async waitFor(ok, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!ok(spans)) {
        if (Date.now() > until)
          throw new Error(`spans not received in ${timeoutMs} ms; got: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return spans;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A W3C traceparent of a new, sampled trace, and its trace id. */
export function newTraceparent(): { traceparent: string; traceId: string } {
  const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex');
  const spanId = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId };
}

/**
 * Records spans through `provider` as bin/tracing.ts sets tracing up: the provider and the W3C
 * propagator, and no context manager, so a span reaches its parent only through the trace the
 * platform hands on (nothing is carried implicitly). Returns what undoes it.
 */
export function recordSpans(provider: TracerProvider): () => void {
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return () => {
    trace.disable();
    propagation.disable();
  };
}

/** The value of one series of `name` in a platform's registry, with exactly these labels (0 when there is none). */
export async function seriesValue(m: PrometheusMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = m.registry.getSingleMetric(name);
  if (!metric) return 0;
  const found = (await metric.get()).values.find(
    (v) =>
      Object.keys(labels).length === Object.keys(v.labels).length && Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x),
  );
  return found?.value ?? 0;
}
