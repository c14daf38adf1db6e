/** PLACEHOLDER (replaced by the upstream HTTP client): the interface the providers use. */
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

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer>;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

export interface UpstreamRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Names the upstream in error messages (`Azure OpenAI`, `Gemini`, ...). */
  vendor: string;
}

export interface UpstreamHttp {
  request(req: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function upstreamHttp(_settings: UpstreamSettings = DEFAULT_UPSTREAM): UpstreamHttp {
  return { request: () => Promise.reject(new Error('not yet')), close: async () => undefined };
}
