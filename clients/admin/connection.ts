import type { PageAsk } from '../../core/shared/admin/paging';
import { BadRequest } from '../../core/shared/errors';
import { httpClient, type HttpMethod, type QueryValue } from '../shared/http';

/** The admin API's prefix on a platform (rest/admin/prefix.ts says the same; clients import no rest/). */
export const ADMIN_PATH = '/admin/api/v1';

/** A page as every admin list answers it over the wire. */
export interface PageWire<T> {
  items: T[];
  next_cursor: string | null;
  total: number;
}

/**
 * An administrator's connection to a platform's admin API (docs/admin.md): every call carries its
 * bearer token, an error answer comes back as the platform's error (what the in-process admin API
 * throws), an update names the version it read (`If-Match`), a list answers one page as the wire has it.
 */
export interface AdminConnection {
  request<T>(method: HttpMethod, path: string, o?: { query?: Record<string, QueryValue>; json?: unknown; version?: number }): Promise<T>;
  page<T>(path: string, ask: PageAsk, filters?: Record<string, QueryValue>): Promise<PageWire<T>>;
}

/** `url`: the platform's base URL (`http://host:8080`); `bearer`: an administrator's access token. */
export function adminConnection(opts: { url: string; bearer: string; timeoutMs?: number }): AdminConnection {
  // Administration is not retried behind the operator's back: a 429 says so and the command stops.
  const { request } = httpClient({ baseUrl: opts.url.replace(/\/+$/, '') + ADMIN_PATH, timeoutMs: opts.timeoutMs ?? 60_000, retries: 0 });
  const conn: AdminConnection = {
    request: (method, path, o = {}) =>
      request(method, path, {
        bearer: opts.bearer,
        query: o.query,
        json: o.json,
        headers: o.version === undefined ? undefined : { 'if-match': `"${o.version}"` },
      }),
    page: <T>(path: string, ask: PageAsk, filters: Record<string, QueryValue> = {}) =>
      conn.request<PageWire<T>>('GET', path, { query: { ...filters, limit: ask.limit, cursor: ask.cursor, sort: ask.sort } }),
  };
  return conn;
}

/**
 * A path segment from a value the operator typed (a realm name, a client id): never a path of its
 * own. `.` and `..` (also encoded) would be resolved away by the URL and name another object, and
 * no name the platform gives is one of them.
 */
export function seg(v: string): string {
  if (v === '' || v === '.' || v === '..') throw new BadRequest(`'${v}' names no object`);
  return encodeURIComponent(v);
}
