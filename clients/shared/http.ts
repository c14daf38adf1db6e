import type { CallMeta } from '../../core/shared/context';
import { readJson, readText } from '../../core/shared/http/body';
import { unreadable } from '../../core/shared/http/failures';
import { framingOf, jsonEvents, type JsonEvent } from '../../core/shared/http/json-events';
import { retryAfterMs, type HeaderBag, type RetryPolicy } from '../../core/shared/http/retry';
import { httpTransport, type Answer } from '../../core/shared/http/transport';
import type { Trace } from '../../core/shared/telemetry/tracing';
import { errorFromResponse } from './http-errors';

/**
 * The HTTP side of the REST clients, on the platform's one transport (core/shared/http): one request
 * helper that turns a service's error answers back into the platform's errors, so a remote service
 * throws what the in-process one would. Between our services only an answer that names its wait is
 * retried (a 429 or 503 with Retry-After, within `maxRetryWaitMs`); a failed connection is not.
 */
export interface HttpClientOptions {
  baseUrl: string;
  /** Milliseconds to wait for the answer's head, and then for each silence within its body. Default 10 s. */
  timeoutMs?: number;
  /** Milliseconds to open a connection. Default the smaller of `timeoutMs` and 10 s. */
  connectTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Retries after a 429 or 503 whose Retry-After fits the budget below. Default 2. */
  retries?: number;
  /** Longest total wait on Retry-After for one call; a longer one fails at once. Default 5000. */
  maxRetryWaitMs?: number;
}

/** Per call: whose call this is (the caller's own token and request id travel on) and when to give up. */
export interface CallOptions {
  bearer?: string;
  requestId?: string;
  /** Ends the call (and any wait for a retry); the call then rejects with the signal's own reason. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** The call's trace: the request carries it as `traceparent`. */
  trace?: Trace;
}

/** The parts of a service call's context that cross the hop: the caller's token, request id, cancellation, trace. */
export const callOptions = (ctx?: CallMeta & { caller?: { bearer: string } }): CallOptions => ({
  bearer: ctx?.caller?.bearer,
  requestId: ctx?.requestId,
  signal: ctx?.signal,
  trace: ctx?.trace,
});

export { errorFromResponse };
/** One parsed object of a streamed answer; `event` is the SSE event name, `message` when none (and for NDJSON). */
export type StreamEvent = JsonEvent;

export type QueryValue = string | number | boolean | null | undefined | object;

/** The headers of an answer, by name in any case. */
export interface AnswerHeaders {
  get(name: string): string | null;
}

export interface RequestOptions extends CallOptions {
  /** DECISIONS: an array is the repeated key, an object is JSON text. */
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: Record<string, string | undefined>;
  /** A multipart/form-data body (a file upload); the transport writes its boundary, and all of it again on a retry. */
  multipart?: FormData;
  /** Called with the headers of the answer that is returned (not of a retried one). */
  onHeaders?: (headers: AnswerHeaders) => void;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpClient {
  /** One JSON answer (`undefined` for 204). */
  request<T = unknown>(this: void, method: HttpMethod, path: string, options?: RequestOptions): Promise<T>;
  /** The objects of an SSE or NDJSON answer; leaving the loop early closes the connection. */
  stream<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): AsyncGenerator<T>;
  /** As `stream`, with each object's SSE event name. */
  events(method: HttpMethod, path: string, options?: RequestOptions): AsyncGenerator<StreamEvent>;
}

/** An error answer is only quoted: this much of it is read. */
const MAX_ERROR_BODY = 64 * 1024;

function withQuery(path: string, query: Record<string, QueryValue> = {}): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) q.append(key, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const s = q.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

function encodeBody(o: RequestOptions): { body?: string | FormData; type?: string } {
  if (o.multipart) return { body: o.multipart };
  if (o.json !== undefined) return { body: JSON.stringify(o.json), type: 'application/json' };
  if (!o.form) return {};
  const fields = Object.entries(o.form).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== null);
  return { body: new URLSearchParams(fields).toString(), type: 'application/x-www-form-urlencoded' };
}

/** Header names are case-insensitive: kept in lower case, so a later value replaces an earlier one. */
const lowered = (h: Record<string, string> = {}) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

const headerReader = (h: HeaderBag): AnswerHeaders => ({
  get(name) {
    const v = h[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  },
});

/** A service's error answer as the platform's error, with its Retry-After when it asked to wait. */
async function refusal(res: Answer, who: string, signal?: AbortSignal) {
  // An error answer that breaks off is still its status (the caller's abort is still the caller's).
  const text = await readText(res.body, who, signal, { limit: MAX_ERROR_BODY, truncate: true }).catch((err: unknown) => {
    if (signal?.aborted) throw err;
    return '';
  });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const wait = res.status === 429 || res.status === 503 ? retryAfterMs(res.headers) : undefined;
  return errorFromResponse(res.status, body, wait === undefined ? undefined : Math.ceil(wait / 1000));
}

export function httpClient(opts: HttpClientOptions): HttpClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const { timeoutMs = 10_000, retries = 2, maxRetryWaitMs = 5_000 } = opts;
  const transport = httpTransport({ connectTimeoutMs: opts.connectTimeoutMs ?? Math.min(timeoutMs, 10_000), readTimeoutMs: timeoutMs });
  const policy: RetryPolicy = { retries, retryStatus: (status) => status === 429 || status === 503, budgetMs: maxRetryWaitMs };
  const defaults = lowered(opts.headers);

  /** Sends; resolves with a 2xx answer once its head is in, else throws the platform's error. */
  async function open(method: HttpMethod, path: string, o: RequestOptions, accept: string): Promise<Answer> {
    const { body, type } = encodeBody(o);
    const headers: Record<string, string> = { accept, ...(type && { 'content-type': type }), ...defaults, ...lowered(o.headers) };
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    if (o.requestId) headers['x-request-id'] = o.requestId;
    const who = base + path;
    const res = await transport.send(
      { url: base + withQuery(path, o.query), method, headers, body, signal: o.signal, trace: o.trace },
      policy,
      who,
    );
    if (res.status < 200 || res.status >= 300) throw await refusal(res, who, o.signal);
    o.onHeaders?.(headerReader(res.headers));
    return res;
  }

  async function openStream(method: HttpMethod, path: string, o: RequestOptions): Promise<AsyncGenerator<JsonEvent>> {
    const res = await open(method, path, o, 'text/event-stream');
    const who = base + path;
    const framing = framingOf(res.headers['content-type']);
    if (!framing) {
      await res.body.dump();
      throw unreadable(who, `${String(res.headers['content-type'] ?? 'no content type')}, not a stream`);
    }
    // The timeout bounds the wait for the head and then each silence: a stream lasts as long as its
    // producer speaks (SSE heartbeats keep it alive), bounded by the caller's signal. Our services
    // end every SSE stream with [DONE]: one ending without it was cut short.
    return jsonEvents(res.body, { framing, who, signal: o.signal, doneRequired: true });
  }

  return {
    async request<T>(method: HttpMethod, path: string, o: RequestOptions = {}): Promise<T> {
      const res = await open(method, path, o, 'application/json');
      if (res.status === 204 || res.status === 205) {
        await res.body.dump();
        return undefined as T;
      }
      return (await readJson(res.body, base + path, o.signal)) as T;
    },
    async *stream<T>(method: HttpMethod, path: string, o: RequestOptions = {}): AsyncGenerator<T> {
      for await (const e of await openStream(method, path, o)) yield e.data as T;
    },
    async *events(method: HttpMethod, path: string, o: RequestOptions = {}): AsyncGenerator<StreamEvent> {
      yield* await openStream(method, path, o);
    },
  };
}
