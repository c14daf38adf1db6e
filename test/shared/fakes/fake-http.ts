import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { constants, createServer as createH2Server, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

/**
 * The machinery every fake vendor upstream shares: a server on port 0 (HTTP/1.1, or cleartext
 * HTTP/2 for the AWS SDK), a script of steps consumed one per request (then the vendor's default
 * answer), and a record of every request (path, headers, body, and whether the client left early).
 */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed, when it was JSON. */
  json: any;
  /** Resolves when the client closed the connection (or stream) before the answer was complete. */
  cut: Promise<void>;
  readonly wasCut: boolean;
}

/** What every fake can do instead of its vendor's answer. */
export type CommonStep =
  /** The vendor's error body for this status (`code`: its error code or exception type). */
  | { status: number; message?: string; code?: string; headers?: Record<string, string> }
  /** Never answer (the headers never come). */
  | { stall: true }
  /** Reset the connection without answering. */
  | { reset: true }
  /** Answer this text as is (bad JSON, ...). */
  | { raw: string; status?: number; contentType?: string };

/** Mid-answer behaviour of a streamed answer: stop after N of its chunks and then hang, or reset, or wait for `resume`. */
export interface Midway {
  stallAfter?: number;
  resetAfter?: number;
  /** After this many chunks, wait until `resume` settles, then send the rest (an answer seen half written, then whole). */
  pauseAfter?: number;
  resume?: Promise<unknown>;
}

export type FakeResponse = ServerResponse | Http2ServerResponse;

export interface Reply {
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Sends the chunks of a streamed answer, honouring stallAfter / resetAfter. */
  stream(contentType: string, chunks: (string | Uint8Array)[], midway?: Midway): Promise<void>;
  reset(): void;
}

export interface FakeDef<S> {
  http2?: boolean;
  /** Keep each request in `requests` (default); a benchmark turns it off so memory stays flat. */
  record?: boolean;
  errorBody(status: number, message: string, code?: string): { body: unknown; headers?: Record<string, string> };
  /** The vendor answer to a request: its step, or its default when the script is spent. */
  answer(req: RecordedRequest, step: S | undefined, reply: Reply): void | Promise<void>;
}

export interface FakeUpstream<S> {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Connections (HTTP/2 sessions) opened to it so far: keep-alive reuse shows as fewer than requests. */
  readonly connections: number;
  /** Queues steps: each request takes the next one; when none is left, the vendor's default answer. */
  script(...steps: (S | CommonStep)[]): void;
  close(): Promise<void>;
}

const isCommon = (s: unknown): s is CommonStep =>
  !!s && typeof s === 'object' && ('status' in s || 'stall' in s || 'reset' in s || 'raw' in s);

export async function startFake<S>(def: FakeDef<S>): Promise<FakeUpstream<S>> {
  const requests: RecordedRequest[] = [];
  const queue: (S | CommonStep)[] = [];
  const sessions = new Set<Http2Session>();
  let connections = 0;

  const handle = async (
    req: { method?: string; url?: string; headers: IncomingHttpHeaders } & AsyncIterable<Buffer>,
    res: FakeResponse,
  ) => {
    let finished = false;
    let wasCut = false;
    let markCut!: () => void;
    const cut = new Promise<void>((resolve) => (markCut = resolve));
    res.on('close', () => {
      if (finished) return;
      wasCut = true;
      markCut();
    });
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk);
    const body = Buffer.concat(parts);
    let json: unknown;
    try {
      json = body.length ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
      json,
      cut,
      get wasCut() {
        return wasCut;
      },
    };
    if (def.record !== false) requests.push(recorded);

    const reset = () => {
      if ('stream' in res && res.stream) res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else (res as ServerResponse).socket?.resetAndDestroy();
    };
    const end = (status: number, headers: Record<string, string>, text: string | Uint8Array) => {
      finished = true;
      res.writeHead(status, headers);
      res.end(text);
    };
    const reply: Reply = {
      json: (status, value, headers = {}) => end(status, { 'content-type': 'application/json', ...headers }, JSON.stringify(value)),
      async stream(contentType, chunks, midway = {}) {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
        for (const [i, chunk] of chunks.entries()) {
          if (midway.stallAfter === i) return;
          if (midway.resetAfter === i) return reset();
          if (midway.pauseAfter === i) {
            await midway.resume;
            // The client may have left meanwhile: nothing more to send.
            if (res.destroyed) return;
          }
          (res as ServerResponse).write(chunk);
          // Let each chunk leave on its own, as a real upstream's tokens do.
          await new Promise((r) => setImmediate(r));
        }
        finished = true;
        res.end();
      },
      reset,
    };
    const step = queue.shift();
    if (!isCommon(step)) return def.answer(recorded, step, reply);
    if ('stall' in step) return;
    if ('reset' in step) return reset();
    if ('raw' in step) return end(step.status ?? 200, { 'content-type': step.contentType ?? 'application/json' }, step.raw);
    const e = def.errorBody(step.status, step.message ?? `Fake error ${step.status}`, step.code);
    reply.json(step.status, e.body, { ...e.headers, ...step.headers });
  };
  const onRequest = (req: Parameters<typeof handle>[0], res: FakeResponse) => void handle(req, res).catch(() => res.destroy?.());

  const server = def.http2 ? createH2Server(onRequest) : createServer(onRequest);
  if (def.http2) {
    (server as ReturnType<typeof createH2Server>).on('session', (s) => {
      connections++;
      sessions.add(s);
      s.once('close', () => sessions.delete(s));
    });
  } else server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    script: (...steps) => void queue.push(...steps),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer as the pieces a fake streams: the given list, or its words in threes. */
export const piecesOf = (answer: string | string[]): string[] => {
  if (Array.isArray(answer)) return answer;
  const words = answer.split(/(?<=\s)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
};

/** A tool call a fake answers with, in its vendor's format (`id` absent: the vendor's own, or none where it sends none). */
export interface FakeToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** A JSON text cut in pieces of about `size` characters, as vendors stream a tool call's arguments. */
export const jsonPieces = (value: unknown, size = 8): string[] => {
  const text = JSON.stringify(value);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

/** A deterministic small vector for a text, so tests can tell inputs apart. */
export const vectorOf = (text: string, dims = 8): number[] =>
  Array.from({ length: dims }, (_, i) => Number(((((text.charCodeAt(i % Math.max(1, text.length)) || 7) * (i + 1)) % 97) / 97).toFixed(4)));
