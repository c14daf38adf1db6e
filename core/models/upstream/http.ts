import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { badResponse, isConnectionFailure, retryAfterMs, statusError, transportError, type Headers } from './errors';

/**
 * The one HTTP client every vendor adapter calls its upstream with (Bedrock excepted: the AWS SDK
 * brings its own transport, configured from the same settings). Keep-alive connections pooled per
 * origin; a connect timeout; a read timeout for the headers and then for each silence between two
 * chunks of the body; retries with exponential backoff and jitter after a 429, a 5xx or a failed
 * connection, only ever before a byte of the answer was handed out. `request` throws the mapped
 * PlatformError (upstream/errors.ts) for every non-2xx answer, so a response it returns is a 2xx.
 * (undici checks its read timers about twice a second: a timeout fires up to ~1 s late.)
 */
export interface UpstreamSettings {
  /** Milliseconds to open a connection (TCP and TLS). */
  connectTimeoutMs: number;
  /** Milliseconds to wait for the response headers, and then between two chunks of the body. */
  readTimeoutMs: number;
  /** Retries after a 429, a 5xx or a failed connection, before any byte of the answer was read. */
  retries: number;
  /** The first retry's delay; doubled each time, with jitter; a Retry-After header wins when shorter than the read timeout. */
  retryBaseMs: number;
}

export const DEFAULT_UPSTREAM: UpstreamSettings = { connectTimeoutMs: 5000, readTimeoutMs: 60_000, retries: 2, retryBaseMs: 250 };

/** A 2xx answer. Reading `body` (or `json`/`text`) throws UpstreamTimeout / UpstreamFailed when the upstream fails midway. */
export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it arrives; leaving the loop early closes the connection. */
  body: AsyncIterable<Buffer>;
  /** The whole body as JSON; 502 `upstream_bad_response` when it is not JSON. */
  json(): Promise<unknown>;
  text(): Promise<string>;
}

export interface UpstreamRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Aborts at any point: connecting, waiting, backing off, reading. The promise (or the body) then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Names the upstream in error messages (`Azure OpenAI`, `Gemini`, ...). */
  vendor: string;
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
/** Bodies the gateway reads whole (JSON answers, images) stay under this; streams are not bounded. */
const MAX_WHOLE_BODY = 64 * 1024 * 1024;
const MAX_ERROR_BODY = 64 * 1024;

const aborted = (signal: AbortSignal | undefined, err: unknown) => (signal?.aborted ? (signal.reason ?? err) : undefined);

export function upstreamHttp(settings: UpstreamSettings = DEFAULT_UPSTREAM): UpstreamHttp {
  const agent = new Agent({
    connect: { timeout: settings.connectTimeoutMs },
    headersTimeout: settings.readTimeoutMs,
    bodyTimeout: settings.readTimeoutMs,
    keepAliveTimeout: 30_000,
  });
  // Full jitter around the doubled delay keeps a crowd of retrying calls from hitting the upstream in step.
  const backoff = (attempt: number) => settings.retryBaseMs * 2 ** attempt * (0.5 + Math.random() / 2);

  async function request(req: UpstreamRequest): Promise<UpstreamResponse> {
    const { vendor, signal } = req;
    const url = new URL(req.url);
    const secrets = req.secrets ?? Object.entries(req.headers ?? {}).filter(([k]) => AUTH_HEADERS.has(k.toLowerCase())).map(([, v]) => v.replace(/^Bearer /, ''));
    const wait = async (ms: number) => {
      try {
        await sleep(ms, undefined, { signal });
      } catch (err) {
        throw aborted(signal, err) ?? err;
      }
    };
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let res: Dispatcher.ResponseData;
      try {
        res = await agent.request({
          origin: url.origin, path: url.pathname + url.search, method: req.method ?? 'POST', headers: req.headers, body: req.body, signal,
        });
      } catch (err) {
        const stop = aborted(signal, err);
        if (stop) throw stop;
        if (attempt < settings.retries && isConnectionFailure(err)) {
          await wait(backoff(attempt));
          continue;
        }
        throw transportError(vendor, err);
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return response(vendor, res, signal);
      const text = await readText(vendor, res.body, signal, MAX_ERROR_BODY, true);
      if (attempt < settings.retries && (res.statusCode === 429 || res.statusCode >= 500)) {
        const after = retryAfterMs(res.headers);
        // An upstream asking for a longer pause than the read timeout is not worth waiting for here.
        if (after === undefined || after < settings.readTimeoutMs) {
          await wait(after ?? backoff(attempt));
          continue;
        }
      }
      throw statusError(vendor, res.statusCode, text, res.headers, secrets);
    }
  }

  return { settings, request, close: () => agent.close() };
}

/** The body's chunks, its failures mapped (an abort rethrows the caller's reason). */
async function* chunks(vendor: string, body: Dispatcher.ResponseData['body'], signal?: AbortSignal): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk as Buffer;
  } catch (err) {
    throw aborted(signal, err) ?? transportError(vendor, err);
  }
}

async function readText(vendor: string, body: Dispatcher.ResponseData['body'], signal: AbortSignal | undefined, limit: number, truncate: boolean) {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks(vendor, body, signal)) {
    parts.push(chunk);
    size += chunk.length;
    if (size > limit) {
      if (truncate) break;
      throw badResponse(vendor, `a body over ${limit} bytes`);
    }
  }
  return Buffer.concat(parts).toString('utf8');
}

function response(vendor: string, res: Dispatcher.ResponseData, signal?: AbortSignal): UpstreamResponse {
  const text = () => readText(vendor, res.body, signal, MAX_WHOLE_BODY, false);
  return {
    status: res.statusCode,
    headers: res.headers as Headers,
    body: chunks(vendor, res.body, signal),
    text,
    async json() {
      const t = await text();
      try {
        return JSON.parse(t) as unknown;
      } catch {
        throw badResponse(vendor, 'not JSON');
      }
    },
  };
}
