import type { Agent, Dispatcher, FormData as WireFormData } from 'undici';
import { abortedBy, transportError } from './failures';
import { pause, retryDelay, type HeaderBag, type RetryPolicy } from './retry';
import { injectTrace, inSpan, SpanKind, type Trace } from '../telemetry/tracing';

/** undici is loaded with the first request: a process that never calls out (the CLI) does not pay for it. */
const undici = () => require('undici') as typeof import('undici');

/**
 * The one outbound HTTP transport (undici): keep-alive connections pooled per origin, a connect
 * timeout, a read timeout for the answer's head and then for each silence between two chunks of
 * its body, the caller's AbortSignal on every step (connecting, waiting, backing off, reading).
 * `send` retries as its RetryPolicy says, only ever before the answer is handed out, and returns
 * the first answer it does not retry, whatever its status: who answered decides what a status
 * means (a vendor's 401 is the gateway's misconfiguration, one of our services' 401 the caller's).
 * A failure without an answer is the platform's error (failures.ts); an abort is the signal's reason.
 * (undici checks read timers over a second about twice a second: such a timeout fires up to ~1 s late.)
 */
export interface TransportSettings {
  /** Milliseconds to open a connection (TCP and TLS). */
  connectTimeoutMs: number;
  /** Milliseconds to wait for the answer's head, and then between two chunks of its body. */
  readTimeoutMs: number;
  /** How long an idle connection stays open when the server does not say. Default 30 s. */
  keepAliveMs?: number;
}

export interface Exchange {
  url: string;
  method: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  /** A FormData body is sent as multipart/form-data with its boundary, whole again on every attempt. */
  body?: string | Buffer | FormData;
  signal?: AbortSignal;
  /** The trace the exchange's client span belongs to (the call's `Ctx.trace`). */
  trace?: Trace;
}

/** The body of an answer as undici hands it out: leaving a loop over it early closes the connection. */
export type AnswerBody = Dispatcher.ResponseData['body'];

export interface Answer {
  status: number;
  headers: HeaderBag;
  body: AnswerBody;
}

export interface Transport {
  /** Sends, retrying as `policy` says; `who` names the other side in error messages. */
  send(x: Exchange, policy: RetryPolicy, who: string): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * undici writes a multipart body only from its own FormData class; Node's global one (another copy
 * of undici) is copied over by reference, entry by entry, with its files' names and types.
 */
function wireBody(body: Exchange['body']): string | Buffer | WireFormData | undefined {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  const { FormData } = undici();
  if (body instanceof FormData) return body;
  const form = new FormData();
  for (const [name, value] of body) form.append(name, value);
  return form;
}

export function httpTransport(settings: TransportSettings): Transport {
  let pool: Agent | undefined;
  const agent = () =>
    (pool ??= new (undici().Agent)({
      connect: { timeout: settings.connectTimeoutMs },
      headersTimeout: settings.readTimeoutMs,
      bodyTimeout: settings.readTimeoutMs,
      keepAliveTimeout: settings.keepAliveMs ?? 30_000,
    }));

  /**
   * One client span per exchange (retries included), ended when the answer's head arrives; the
   * request carries it as `traceparent`, so a service or vendor that traces continues the trace.
   */
  const send = (x: Exchange, policy: RetryPolicy, who: string): Promise<Answer> => {
    const url = new URL(x.url);
    // Named by method and host (few names); the path goes in an attribute, never the query (it may carry credentials).
    return inSpan(
      x.trace,
      `${x.method} ${url.host}`,
      {
        'http.request.method': x.method,
        'server.address': url.hostname,
        'url.path': url.pathname,
        'peer.service': who.startsWith('http') ? url.host : who,
      },
      async (span, trace) => {
        const answer = await exchange(x, url, policy, who, trace);
        span.setAttribute('http.response.status_code', answer.status);
        return answer;
      },
      SpanKind.CLIENT,
    );
  };

  async function exchange(x: Exchange, url: URL, policy: RetryPolicy, who: string, trace: Trace): Promise<Answer> {
    const options: Dispatcher.RequestOptions = {
      origin: url.origin,
      path: url.pathname + url.search,
      method: x.method,
      headers: injectTrace({ ...x.headers }, trace),
      body: wireBody(x.body),
      signal: x.signal,
    };
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      x.signal?.throwIfAborted();
      let wait: number | undefined;
      try {
        const res = await agent().request(options);
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        wait = ok ? undefined : retryDelay(policy, attempt, waited, { status: res.statusCode, headers: res.headers });
        if (wait === undefined) return { status: res.statusCode, headers: res.headers, body: res.body };
        // Read to its end (it is short), so the connection serves the next attempt.
        await res.body.dump();
      } catch (err) {
        if (x.signal?.aborted) throw abortedBy(x.signal, err);
        wait = retryDelay(policy, attempt, waited, { error: err });
        if (wait === undefined) throw transportError(who, err);
      }
      await pause(wait, x.signal);
      waited += wait;
    }
  }

  return { send, close: async () => pool?.close() };
}
