import type { TokenCore } from '../../../core/token';
import { startInTemp, type Started } from '../shared/server';

/** The platform started in process, with tokens for callers of two tenants and of missing roles. */
export interface SearchFixture {
  platform: Started;
  url: string;
  /** Bearer header values. */
  a: string;
  aOther: string;
  b: string;
  readOnly: string;
  noRoles: string;
  /** fetch against the platform with a bearer. */
  call(
    method: string,
    path: string,
    opts?: { auth?: string; body?: unknown; headers?: Record<string, string>; raw?: string | Uint8Array | FormData },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export async function searchFixture(env: Record<string, string> = {}): Promise<SearchFixture> {
  const platform = await startInTemp('all', env);
  const token = platform.instances.token as unknown as TokenCore;
  const realm = platform.bootstrap!.values.realm;
  const tokenFor = async (clientId: string, tenantId: string, roles: string[]) => {
    const c = await token.admin.createClient({ realm, clientId, tenantId, roles });
    const res = await fetch(`${platform.url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, client_secret: c.client_secret, realm }),
    });
    return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
  };
  const rw = ['search:read', 'search:write'];
  const [a, aOther, b, readOnly, noRoles] = await Promise.all([
    tokenFor('a-1', 'tenant-a', rw),
    tokenFor('a-2', 'tenant-a', rw),
    tokenFor('b-1', 'tenant-b', rw),
    tokenFor('a-ro', 'tenant-a', ['search:read']),
    tokenFor('a-none', 'tenant-a', []),
  ]);
  const call: SearchFixture['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.auth !== '') headers.authorization = opts.auth ?? a;
    let body: string | Uint8Array | FormData | undefined = opts.raw;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(`${platform.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return { platform, url: platform.url, a, aOther, b, readOnly, noRoles, call, stop: () => platform.stop() };
}
