import type { TokenCore } from '../../../core/token';
import type { Started } from '../shared/server';

/** What the catalog's admin tests (admin-catalog*.test.ts) call a platform with. */
export const ADMIN = '/admin/api/v1';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
  text: string;
}

/** `Bearer <token>` of a new client of `realm` holding `roles` (client credentials). */
export async function bearerOf(p: Started, realm: string, clientId: string, roles: string[]): Promise<string> {
  const token = p.instances.token as unknown as TokenCore;
  const c = await token.admin.createClient({ realm, clientId, roles });
  const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: c.client_secret, realm }),
  });
  return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(opts.auth ? { authorization: opts.auth } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body, headers: res.headers, text };
}

/** A chat completion through the gateway's group A route with an LM key. */
export const chat = (base: string, key: string, model: string) =>
  call(base, 'POST', `/proxy/api/v1/azure/openai/deployments/${encodeURIComponent(model)}/chat/completions?api-version=2024-10-21`, {
    headers: { 'api-key': `${key}/{"is_cache": 0}` },
    body: {
      messages: [
        { role: 'system', content: 'Ice melts. Seas rise as ice melts.' },
        { role: 'user', content: 'Why do seas rise?' },
      ],
    },
  });

/** The model ids the gateway lists to an LM key. */
export const listed = async (base: string, key: string): Promise<string[]> =>
  ((await call(base, 'GET', '/proxy/api/v1/models', { headers: { 'api-key': key } })).body.data as { id: string }[]).map((m) => m.id);
