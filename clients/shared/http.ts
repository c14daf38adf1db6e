import { setTimeout as delay } from 'node:timers/promises';
import type { CallMeta } from '../../core/shared/context';
import { PlatformError, UpstreamFailed, UpstreamTimeout } from '../../core/shared/errors';
import { errorFromResponse, retryAfterMs } from './http-errors';
import { readEvents, type StreamEvent } from './streams';

/**
 * The HTTP side of the REST clients: one request helper that turns a service's error answers back
 * into the platform's errors, so a remote service throws what the in-process one would.
 */
export interface HttpClientOptions {
  baseUrl: string;
  /** Per attempt, until the whole JSON answer (or, for streams, the answer's head) is in. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
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
}

/** The parts of a service call's context that cross the hop: the caller's token, request id, cancellation. */
export const callOptions = (ctx?: CallMeta & { caller?: { bearer: string } }): CallOptions => ({ bearer: ctx?.caller?.bearer, requestId: ctx?.requestId, signal: ctx?.signal });

export { errorFromResponse, retryAfterMs };

export type QueryValue = string | number | boolean | null | undefined | object;

export interface RequestOptions extends CallOptions {
  /** DECISIONS: an array is the repeated key, an object is JSON text. */
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: Record<string, string | undefined>;
  /** A multipart/form-data body (a file upload); fetch writes its boundary. */
  multipart?: FormData;
  /** Called with the headers of the answer that is returned (not of a retried one). */
  onHeaders?: (headers: Headers) => void;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpClient {
  /** One JSON answer (`undefined` for 204). */
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<T>;
  /** The objects of an SSE or NDJSON answer; leaving the loop early cancels the HTTP body. */
  stream<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): AsyncGenerator<T>;
  /** As `stream`, with each object's SSE event name. */
  events(method: HttpMethod, path: string, options?: RequestOptions): AsyncGenerator<StreamEvent>;
}


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

export function httpClient(opts: HttpClientOptions): HttpClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const { timeoutMs = 10_000, retries = 2, maxRetryWaitMs = 5_000 } = opts;

  /** One attempt's abort: its own timer, the caller's signal, and an explicit stop (streams). */
  function attempt(caller?: AbortSignal) {
    const stop = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; stop.abort(); }, timeoutMs);
    return {
      signal: caller ? AbortSignal.any([caller, stop.signal]) : stop.signal,
      settle: () => clearTimeout(timer),
      stop: () => { clearTimeout(timer); stop.abort(); },
      // The caller's own abort comes back as its reason: it is not the remote service's failure.
      failure: (err: unknown, what: string): unknown =>
        caller?.aborted ? caller.reason
          : err instanceof PlatformError ? err
          : timedOut ? new UpstreamTimeout(`${base} did not answer in time`, { cause: err })
          : new UpstreamFailed(`${base}${what}`, { cause: err }),
    };
  }

  async function open(method: HttpMethod, path: string, o: RequestOptions, accept: string) {
    const url = base + withQuery(path, o.query);
    const { body, type } = encodeBody(o);
    const headers = new Headers({ accept, ...(type && { 'content-type': type }) });
    // set(), not the constructor: header names are case-insensitive, and the call's own win.
    for (const [k, v] of [...Object.entries(opts.headers ?? {}), ...Object.entries(o.headers ?? {})]) headers.set(k, v);
    if (o.bearer) headers.set('authorization', `Bearer ${o.bearer}`);
    if (o.requestId) headers.set('x-request-id', o.requestId);
    let waited = 0;
    for (let tries = 0; ; tries++) {
      const a = attempt(o.signal);
      let res: Response;
      try {
        res = await doFetch(url, { method, body, headers, signal: a.signal });
      } catch (err) {
        a.settle();
        throw a.failure(err, ' is unreachable');
      }
      if (res.ok) {
        o.onHeaders?.(res.headers);
        return { res, a };
      }
      const wait = res.status === 429 || res.status === 503 ? retryAfterMs(res.headers.get('retry-after')) : undefined;
      const answer = await res.json().catch(() => undefined);
      a.settle();
      if (wait === undefined || tries >= retries || waited + wait > maxRetryWaitMs) {
        throw errorFromResponse(res.status, answer, wait === undefined ? undefined : Math.ceil(wait / 1000));
      }
      waited += wait;
      // Never sleep past the caller's signal: its abort ends the wait with its reason.
      await delay(wait, undefined, { signal: o.signal }).catch(() => { throw o.signal?.reason; });
    }
  }

  async function* events(method: HttpMethod, path: string, o: RequestOptions = {}): AsyncGenerator<StreamEvent> {
    const { res, a } = await open(method, path, o, 'text/event-stream');
    // The timeout bounds the wait for the answer's head; a stream then lasts as long as its producer
    // speaks (SSE heartbeats keep it alive), bounded by the caller's signal.
    a.settle();
    try {
      yield* readEvents(res, `${base}${path}`);
    } catch (err) {
      throw a.failure(err, `${path}: the stream broke`);
    } finally {
      a.stop();
    }
  }

  return {
    async request<T>(method: HttpMethod, path: string, o: RequestOptions = {}): Promise<T> {
      const { res, a } = await open(method, path, o, 'application/json');
      try {
        return res.status === 204 || res.status === 205 ? (undefined as T) : (JSON.parse(await res.text()) as T);
      } catch (err) {
        const bad = err instanceof SyntaxError ? new UpstreamFailed(`${base}${path} answered without JSON`, { cause: err }) : err;
        throw a.failure(bad, `${path}: the answer broke off`);
      } finally {
        a.settle();
      }
    },
    async *stream<T>(method: HttpMethod, path: string, o?: RequestOptions): AsyncGenerator<T> {
      for await (const e of events(method, path, o)) yield e.data as T;
    },
    events,
  };
}
