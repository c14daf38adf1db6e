import request from 'supertest';
import { inProcess, type InProcess } from '../../shared/in-process';

export interface CallOptions {
  /** The Authorization header: the tenant-a writer's bearer when absent, none when ''. */
  auth?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string | Uint8Array | FormData;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A request to the search face and its answer, the body parsed when it is JSON. */
export type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>;

/**
 * The search REST face in process (`inProcess(['search'])`) with bearers of two tenants and of
 * missing roles, and `call`, the same helper the started platform's fixture (test/e2e/search/fixture.ts)
 * offers, so a case reads alike in both places.
 */
export interface SearchInProcess {
  p: InProcess;
  /** Bearer header values: tenant-a writers, a tenant-b writer, a tenant-a reader, a tenant-a caller with no role. */
  a: string;
  aOther: string;
  b: string;
  readOnly: string;
  noRoles: string;
  call: Call;
  stop(): Promise<void>;
}

export async function searchInProcess(env: Record<string, string> = {}): Promise<SearchInProcess> {
  const p = await inProcess(['search'], env);
  const rw = ['search:read', 'search:write'];
  const [a, aOther, b, readOnly, noRoles] = await Promise.all([
    p.bearer('a-1', 'tenant-a', rw),
    p.bearer('a-2', 'tenant-a', rw),
    p.bearer('b-1', 'tenant-b', rw),
    p.bearer('a-ro', 'tenant-a', ['search:read']),
    p.bearer('a-none', 'tenant-a', []),
  ]);
  const call: Call = async (method, path, opts = {}) => {
    const req = request(p.app)[method.toLowerCase() as 'get'](path);
    if (opts.auth !== '') req.set('authorization', opts.auth ?? a);
    for (const [name, value] of Object.entries(opts.headers ?? {})) req.set(name, value);
    if (opts.body !== undefined) req.set('content-type', 'application/json').send(JSON.stringify(opts.body));
    else if (opts.raw instanceof FormData) {
      // Encoded by undici as fetch encodes it: the same multipart encoding the started-platform cases sent.
      const encoded = new Request('http://search.test/', { method: 'POST', body: opts.raw });
      req.set('content-type', encoded.headers.get('content-type')!).send(Buffer.from(await encoded.arrayBuffer()));
    } else if (opts.raw !== undefined) req.send(typeof opts.raw === 'string' ? opts.raw : Buffer.from(opts.raw));
    const res = await req;
    let body: unknown = res.text;
    try {
      body = JSON.parse(res.text ?? '');
    } catch {
      /* not JSON */
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers as Record<string, string | string[]>)) {
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    return { status: res.status, body, headers };
  };
  return { p, a, aOther, b, readOnly, noRoles, call, stop: () => p.close() };
}
