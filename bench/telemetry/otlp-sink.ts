/**
 * The OTLP/HTTP trace receiver `npm run bench:telemetry` points the traced platform at: POST
 * /v1/traces answered 200 with an empty body (an empty ExportTraceServiceResponse), as a collector
 * that keeps nothing would. It counts requests, bytes and spans (by name, and the service.name of
 * their resource), so the bench can show the platform really exported what it traced. The bodies
 * are kept as they came and read when the sink closes, after the measurements: the sink runs beside
 * the load generator, as a collector elsewhere would not, and must cost it nothing meanwhile. (They
 * are walked, not decoded into objects, and a run's are tens of MiB.)
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface SinkCounts {
  requests: number;
  bytes: number;
  spans: number;
  /** Spans per name. */
  names: Map<string, number>;
  /** The resources' service.name values seen. */
  services: Set<string>;
  /** Bodies the sink could not read (counted, answered 200 all the same). */
  unreadable: number;
}

export interface Sink {
  url: string;
  /** Requests and bytes as they arrive; spans, names and services once closed. */
  counts: SinkCounts;
  /** Stops listening, then reads every body received. */
  close(): Promise<void>;
}

// --- protobuf, as much as the OTLP trace request needs (opentelemetry/proto/collector/trace/v1) ---

const LEN = 2;

function varint(buf: Buffer, pos: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, pos];
    shift += 7;
  }
}

/** Calls `fn` with each field of the message in buf[start, end): its number and, for length-delimited ones, their bounds. */
function eachField(buf: Buffer, start: number, end: number, fn: (field: number, from: number, to: number) => void): void {
  let pos = start;
  while (pos < end) {
    const [key, afterKey] = varint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    pos = afterKey;
    if (wire === 0) pos = varint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === LEN) {
      const [len, from] = varint(buf, pos);
      pos = from + len;
      if (pos > end) throw new Error('truncated field');
      fn(field, from, pos);
    } else throw new Error(`wire type ${wire}`);
  }
}

/** Resource { repeated KeyValue attributes = 1 }, KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string_value = 1 }. */
function serviceName(buf: Buffer, start: number, end: number): string | undefined {
  let name: string | undefined;
  eachField(buf, start, end, (f, from, to) => {
    if (f !== 1) return;
    let key = '';
    let value: string | undefined;
    eachField(buf, from, to, (kf, kFrom, kTo) => {
      if (kf === 1) key = buf.toString('utf8', kFrom, kTo);
      else if (kf === 2) eachField(buf, kFrom, kTo, (vf, vFrom, vTo) => vf === 1 && (value = buf.toString('utf8', vFrom, vTo)));
    });
    if (key === 'service.name') name = value;
  });
  return name;
}

/**
 * ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 };
 * ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 };
 * ScopeSpans { repeated Span spans = 2 }; Span { string name = 5 }.
 */
export function readProtobuf(buf: Buffer, counts: SinkCounts): void {
  eachField(buf, 0, buf.length, (f, from, to) => {
    if (f !== 1) return;
    eachField(buf, from, to, (rf, rFrom, rTo) => {
      if (rf === 1) {
        const s = serviceName(buf, rFrom, rTo);
        if (s) counts.services.add(s);
      } else if (rf === 2) {
        eachField(buf, rFrom, rTo, (sf, sFrom, sTo) => {
          if (sf !== 2) return;
          counts.spans++;
          let name = '';
          eachField(buf, sFrom, sTo, (pf, pFrom, pTo) => pf === 5 && (name = buf.toString('utf8', pFrom, pTo)));
          counts.names.set(name, (counts.names.get(name) ?? 0) + 1);
        });
      }
    });
  });
}

interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: { key?: string; value?: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name?: string }[] }[];
  }[];
}

/** The same request as OTLP/JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). */
export function readJson(buf: Buffer, counts: SinkCounts): void {
  const req = JSON.parse(buf.toString('utf8')) as JsonRequest;
  for (const rs of req.resourceSpans ?? []) {
    const s = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue;
    if (s) counts.services.add(s);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        counts.spans++;
        counts.names.set(span.name ?? '', (counts.names.get(span.name ?? '') ?? 0) + 1);
      }
    }
  }
}

export const emptyCounts = (): SinkCounts => ({ requests: 0, bytes: 0, spans: 0, names: new Map(), services: new Set(), unreadable: 0 });

/** Listens on 127.0.0.1 on a port of the OS's choosing. */
export function startSink(): Promise<Sink> {
  const counts = emptyCounts();
  const received: { raw: Buffer; gzip: boolean; json: boolean }[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/traces') {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      counts.requests++;
      counts.bytes += raw.length;
      received.push({ raw, gzip: req.headers['content-encoding'] === 'gzip', json: (req.headers['content-type'] ?? '').includes('json') });
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf', 'content-length': '0' }).end();
    });
  });
  const readAll = () => {
    for (const r of received.splice(0)) {
      try {
        const body = r.gzip ? gunzipSync(r.raw) : r.raw;
        if (r.json) readJson(body, counts);
        else readProtobuf(body, counts);
      } catch {
        counts.unreadable++;
      }
    }
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        counts,
        close: () => new Promise<void>((done) => server.close(() => done())).then(readAll),
      });
    });
  });
}
