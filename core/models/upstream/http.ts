import { chunksOf, readJson, readText } from '../../shared/http/body';
import { jsonEvents, type JsonEvent } from '../../shared/http/json-events';
import type { HeaderBag, RetryPolicy } from '../../shared/http/retry';
import { httpTransport, type Answer } from '../../shared/http/transport';
import type { Trace } from '../../shared/telemetry/tracing';
import { statusError } from './errors';

/**
 * The HTTP client every vendor adapter calls its upstream with (Bedrock excepted: the AWS SDK
 * brings its own transport, configured from the same settings): the platform's one transport
 * (core/shared/http) with the vendors' retry policy (a 429, a 5xx or a failed connection, with
 * exponential backoff and jitter; a Retry-After that fits in the read timeout) and their dialect of
 * statuses (upstream/errors.ts). `request` throws the mapped PlatformError for every non-2xx
 * answer, so a response it returns is a 2xx.
 */
export interface UpstreamSettings {
  /** Milliseconds to open a connection (TCP and TLS). */
  connectTimeoutMs: number;
  /** Milliseconds to wait for the response headers, and then between two chunks of the body. */
  readTimeoutMs: number;
  /** Retries after a 429, a 5xx or a failed connection, before any byte of the answer was read. */
  retries: number;
  /** The first retry's delay; doubled each time, with jitter; a Retry-After header wins when the waits fit in the read timeout. */
  retryBaseMs: number;
}

export const DEFAULT_UPSTREAM: UpstreamSettings = { connectTimeoutMs: 5000, readTimeoutMs: 60_000, retries: 2, retryBaseMs: 250 };

/** A 2xx answer. Reading its body (any way) throws UpstreamTimeout / UpstreamFailed when the upstream fails midway. */
export interface UpstreamResponse {
  status: number;
  headers: HeaderBag;
  /** The body as it arrives; leaving the loop early closes the connection. */
  body: AsyncIterable<Buffer>;
  /** The objects of an SSE body, up to `data: [DONE]` when it sends one (`onDone` is told). */
  events(onDone?: () => void): AsyncGenerator<JsonEvent>;
  /** The whole body as JSON; 502 `upstream_bad_response` when it is not JSON. */
  json(): Promise<unknown>;
  text(): Promise<string>;
}

export interface UpstreamRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A FormData body goes as multipart/form-data (the transport writes its boundary and content type). */
  body?: string | Buffer | FormData;
  /** Aborts at any point: connecting, waiting, backing off, reading. The promise (or the body) then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The model call's trace: the exchange's client span is its child, and the vendor gets it as `traceparent`. */
  trace?: Trace;
  /** Names the upstream in error messages (`Azure OpenAI`, `Gemini`, ...). */
  vendor: string;
  /**
   * Retries of this request instead of the settings' (0 for a routed model's call: the router,
   * core/models/routing, retries and fails over itself, so the two never multiply).
   */
  retries?: number;
  /** Header values never to repeat in an error message (the credential); defaults to the auth headers' values. */
  secrets?: string[];
}

export interface UpstreamHttp {
  /** What this client was made with (the Bedrock adapter configures the AWS SDK from it). */
  readonly settings: UpstreamSettings;
  /** Sends, retrying where safe; resolves with a 2xx once its headers arrived, else throws the mapped error. */
  request(req: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

const AUTH_HEADERS = new Set(['authorization', 'api-key', 'x-goog-api-key', 'x-api-key']);
const MAX_ERROR_BODY = 64 * 1024;

const secretsOf = (req: UpstreamRequest) =>
  req.secrets ??
  Object.entries(req.headers ?? {})
    .filter(([k]) => AUTH_HEADERS.has(k.toLowerCase()))
    .map(([, v]) => v.replace(/^Bearer /, ''));

function response(vendor: string, res: Answer, signal?: AbortSignal): UpstreamResponse {
  return {
    status: res.status,
    headers: res.headers,
    body: chunksOf(res.body, vendor, signal),
    events: (onDone) => jsonEvents(res.body, { framing: 'sse', who: vendor, signal, onDone }),
    json: () => readJson(res.body, vendor, signal),
    text: () => readText(res.body, vendor, signal),
  };
}

export function upstreamHttp(settings: UpstreamSettings = DEFAULT_UPSTREAM): UpstreamHttp {
  const transport = httpTransport(settings);
  const policy: RetryPolicy = {
    retries: settings.retries,
    retryStatus: (status) => status === 429 || status >= 500,
    backoffMs: settings.retryBaseMs,
    // An upstream asking for a longer pause than the read timeout is not worth waiting for here.
    budgetMs: settings.readTimeoutMs,
  };

  async function request(req: UpstreamRequest): Promise<UpstreamResponse> {
    const { vendor, signal } = req;
    const res = await transport.send(
      { url: req.url, method: req.method ?? 'POST', headers: req.headers, body: req.body, signal, trace: req.trace },
      req.retries === undefined ? policy : { ...policy, retries: req.retries },
      vendor,
    );
    if (res.status >= 200 && res.status < 300) return response(vendor, res, signal);
    const text = await readText(res.body, vendor, signal, { limit: MAX_ERROR_BODY, truncate: true });
    throw statusError(vendor, res.status, text, res.headers, secretsOf(req));
  }

  return { settings, request, close: () => transport.close() };
}

/**
 * The same client with no retries of its own (for the providers of routed models: the router
 * retries, fails over and cools deployments down, core/models/routing); Bedrock's SDK reads
 * `settings.retries` too.
 */
export function withoutRetries(http: UpstreamHttp): UpstreamHttp {
  return {
    settings: { ...http.settings, retries: 0 },
    request: (req) => http.request({ ...req, retries: 0 }),
    close: () => http.close(),
  };
}
