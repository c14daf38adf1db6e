import {
  BadRequest, Conflict, Forbidden, NotFound, PayloadTooLarge, PlatformError, RateLimited, Unauthenticated,
  UpstreamFailed, UpstreamTimeout, ValidationFailed, type ValidationIssue,
} from '../core/errors';

/**
 * The HTTP side of the REST clients: one request helper that turns a service's error answers back
 * into the platform's errors, so a remote service throws what the in-process one would.
 */
export interface HttpClientOptions {
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

type Body = { detail?: unknown; message?: unknown; error?: unknown } | undefined;

export function errorFromResponse(status: number, body: Body): PlatformError {
  const code = typeof body?.error === 'string' ? body.error : undefined;
  const detail = body?.detail ?? body?.message;
  const message = typeof detail === 'string' ? detail : `HTTP ${status}`;
  switch (status) {
    case 400: return new BadRequest(message, { code });
    case 401: return new Unauthenticated(message, { code });
    case 403: return new Forbidden(message, { code });
    case 404: return new NotFound(message, { code });
    case 409: return new Conflict(message, { code });
    case 413: return new PayloadTooLarge(message, { code });
    case 422: return new ValidationFailed(Array.isArray(detail) ? (detail as ValidationIssue[]) : [{ loc: [], msg: message, type: 'value_error' }]);
    case 429: return new RateLimited(message, 1, { code });
    case 504: return new UpstreamTimeout(message, { code });
    default: return new UpstreamFailed(`upstream answered ${status}: ${message}`, { code });
  }
}

export function httpClient(opts: HttpClientOptions) {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  return async function request<T>(method: 'GET' | 'POST', path: string, form?: Record<string, string | undefined>): Promise<T> {
    const body = form
      ? new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== null))
      : undefined;
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, { method, body, headers: { accept: 'application/json', ...opts.headers }, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
    } catch (err) {
      if ((err as Error)?.name === 'TimeoutError') throw new UpstreamTimeout(`${base} did not answer in time`, { cause: err });
      throw new UpstreamFailed(`${base} is unreachable`, { cause: err });
    }
    const parsed = (await res.json().catch(() => undefined)) as Body;
    if (!res.ok) throw errorFromResponse(res.status, parsed);
    if (parsed === undefined) throw new UpstreamFailed(`${base}${path} answered without JSON`);
    return parsed as T;
  };
}
