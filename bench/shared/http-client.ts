/**
 * The search benches' REST client: keep-alive HTTP/1.1 (node:http, so client overhead stays small
 * next to the ~ms latencies measured), access tokens re-issued before they expire, the search
 * URLs of each mode, and a bounded-concurrency runner for ingest.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Reply {
  status: number;
  text: string;
  json: unknown;
  ms: number;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface SendOptions {
  /** 120 s unless given. */
  timeoutMs?: number;
  /** A new connection of its own (closed after), so node:cluster may hand it to another worker. */
  fresh?: boolean;
}

/** One request; resolves with any status (callers decide what is an error), rejects on network errors. */
export function send(
  method: 'GET' | 'POST',
  url: string,
  body?: string,
  headers: Record<string, string> = {},
  opts: SendOptions = {},
): Promise<Reply> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const all = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = request(url, { method, agent: opts.fresh ? false : agent, headers: all }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json, ms: performance.now() - started });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Throws unless the reply is 2xx, naming the request and the start of the body. */
export function expect2xx(what: string, r: Reply): Reply {
  if (r.status < 200 || r.status > 299) throw new Error(`${what}: status ${r.status}, body ${r.text.slice(0, 300)}`);
  return r;
}

export interface Bootstrap {
  realm: string;
  client_id: string;
  client_secret: string;
  /** The LM key the first start made for the model gateway. */
  api_key?: string;
}

/** Access tokens live 300 s: a token older than 240 s is replaced before it is handed out. */
export function tokens(baseUrl: string, boot: Bootstrap) {
  let token = '';
  let issuedAt = 0;
  const issue = async () => {
    const form = new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret, realm: boot.realm }).toString();
    const r = expect2xx(
      'token',
      await send('POST', `${baseUrl}/auth/api/v1/oauth/connect/token`, form, { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    if (!isObject(r.json) || typeof r.json.access_token !== 'string') throw new Error(`token: no access_token in ${r.text.slice(0, 300)}`);
    token = r.json.access_token;
    issuedAt = Date.now();
  };
  return {
    /** Headers for a search call with a token valid for at least another minute. */
    async headers(): Promise<Record<string, string>> {
      if (!token || Date.now() - issuedAt > 240_000) await issue();
      return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    },
  };
}

export type Tokens = ReturnType<typeof tokens>;

export const SEARCH_PREFIX = '/cl/search/api/v2';

export type Mode = 'fulltext' | 'semantic' | 'hybrid' | 'hybrid re-ranked';

/**
 * Path and query of one search. `minScore` only for full text and semantic (hybrid scores are
 * relative to the best hit); undefined leaves the service's default.
 */
export function searchPath(mode: Mode, query: string, pageSize: number, minScore?: number): string {
  const q = new URLSearchParams({ query_string: query });
  if (mode === 'hybrid' || mode === 'hybrid re-ranked') q.set('re_ranked', String(mode === 'hybrid re-ranked'));
  q.set('page_no', '1');
  q.set('page_size', String(pageSize));
  if (minScore !== undefined && (mode === 'fulltext' || mode === 'semantic')) q.set('min_relevant_score', String(minScore));
  const route = mode === 'fulltext' || mode === 'semantic' ? mode : 'search';
  return `${SEARCH_PREFIX}/${route}?${q}`;
}

export interface Hit {
  object_id: string;
  ext_user_id_ref: string | null;
  score: number;
}

/** Runs a search and returns its hits; throws on a non-2xx or a body not shaped like the spec's. */
export async function search(
  baseUrl: string,
  tok: Tokens,
  path: string,
  opts?: SendOptions,
): Promise<{ hits: Hit[]; count: number; ms: number }> {
  const r = expect2xx(`POST ${path.slice(0, 120)}`, await send('POST', baseUrl + path, '{}', await tok.headers(), opts));
  const j = r.json;
  if (!isObject(j) || j.status !== 'success' || !Array.isArray(j.result))
    throw new Error(`POST ${path.slice(0, 120)}: unexpected body ${r.text.slice(0, 300)}`);
  return { hits: j.result as Hit[], count: Number(j.result_count), ms: r.ms };
}

/** Ingests one object; returns its object_id. */
export async function createObject(baseUrl: string, tok: Tokens, body: Record<string, unknown>): Promise<string> {
  const r = expect2xx('POST /objects', await send('POST', `${baseUrl}${SEARCH_PREFIX}/objects`, JSON.stringify(body), await tok.headers()));
  if (r.status !== 201 || !isObject(r.json) || typeof r.json.object_id !== 'string') {
    throw new Error(`POST /objects: expected 201 with an object_id, got ${r.status} ${r.text.slice(0, 300)}`);
  }
  return r.json.object_id;
}

/** Calls `fn` on every item with at most `concurrency` in flight; stops at the first failure. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<void>,
  onDone?: (n: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
