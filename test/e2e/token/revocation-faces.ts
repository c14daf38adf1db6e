import { randomUUID } from 'node:crypto';

/**
 * What the revocation tests ask of a started platform (several workers, or replicas): the faces
 * that accept access tokens (search REST, the chat proxy's REST with the token in the body,
 * /graphql), and the causes that end a session (RFC 7009 revocation, the GraphQL revokeToken
 * mutation, a disabled user or client, a refresh token used twice).
 */
export interface Bootstrap {
  realm: string;
  tenant_id: string;
  username: string;
  password: string;
  client_id: string;
  client_secret: string;
}

export type Face = 'search' | 'chat' | 'graphql';
export const FACES: readonly Face[] = ['search', 'chat', 'graphql'];

/** Each request on a connection of its own (`connection: close`), so the primary hands them to every worker in turn; its id is kept for the access log. */
export interface Sent {
  ids: string[];
}

const post = (url: string, body: string, headers: Record<string, string>, sent?: Sent) => {
  const id = randomUUID();
  sent?.ids.push(id);
  return fetch(url, { method: 'POST', headers: { connection: 'close', 'x-request-id': id, ...headers }, body });
};

/** Whether `face` of `base` accepts `token` (true), or refuses it as revoked (false); anything else throws. */
export async function accepts(base: string, face: Face, token: string, tenant: string, sent?: Sent): Promise<boolean> {
  const json = { 'content-type': 'application/json' };
  if (face === 'search') {
    const res = await post(`${base}/cl/search/api/v2/fulltext?query_string=glaciers`, '', { authorization: `Bearer ${token}` }, sent);
    const body = (await res.json()) as { message?: string };
    if (res.status === 200) return true;
    if (res.status === 401 && body.message === 'Invalid token: revoked') return false;
    throw new Error(`search: ${res.status} ${JSON.stringify(body)}`);
  }
  if (face === 'chat') {
    const request = {
      user_cred: { token, client: { tenant_id: tenant } },
      bot_config: { caller_version: '1' },
      task_process: { service: 'test' },
      kvp: {},
      query: 'glaciers',
    };
    const res = await post(`${base}/api/get_sources`, JSON.stringify({ request }), json, sent);
    const body = (await res.json()) as { detail?: string };
    if (res.status === 200) return true;
    if (res.status === 401 && body.detail === 'Invalid token: revoked') return false;
    throw new Error(`chat: ${res.status} ${JSON.stringify(body)}`);
  }
  const res = await post(
    `${base}/graphql`,
    JSON.stringify({ query: '{ search(query: "glaciers") { totalCount } }' }),
    { ...json, authorization: `Bearer ${token}` },
    sent,
  );
  const body = (await res.json()) as {
    data?: { search?: { totalCount: number } | null };
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  if (typeof body.data?.search?.totalCount === 'number') return true;
  if (body.errors?.[0]?.message === 'Invalid token: revoked' && body.errors[0].extensions?.code === 'UNAUTHENTICATED') return false;
  throw new Error(`graphql: ${res.status} ${JSON.stringify(body)}`);
}

/** Whether every face refuses `token` `times` times in a row (on fresh connections: every worker). */
export async function refusedEverywhere(base: string, token: string, tenant: string, times: number, sent?: Sent): Promise<boolean> {
  for (const face of FACES) {
    for (let i = 0; i < times; i++) if (await accepts(base, face, token, tenant, sent)) return false;
  }
  return true;
}

/** Polls until `check` holds, without an upper bound on how soon: only a generous timeout for a machine under load. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
}

const form = async (base: string, path: string, fields: Record<string, string>) => {
  const res = await fetch(`${base}/auth/api/v1/oauth/connect/${path}`, { method: 'POST', body: new URLSearchParams(fields) });
  return { status: res.status, body: (await res.json()) as Tokens & Record<string, unknown> };
};

export const login = async (base: string, boot: Bootstrap, username = boot.username, password = boot.password): Promise<Tokens> => {
  const r = await form(base, 'user/login', { realm: boot.realm, username, password });
  if (r.status !== 200) throw new Error(`login: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

export const clientToken = async (base: string, boot: Bootstrap, clientId: string, secret: string): Promise<Tokens> => {
  const r = await form(base, 'token', { realm: boot.realm, client_id: clientId, client_secret: secret });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

/** RFC 7009 at the REST path. */
export async function revokeByRest(base: string, boot: Bootstrap, token: string) {
  expect((await form(base, 'revoke', { realm: boot.realm, token })).status).toBe(200);
}

/** The token subgraph's revokeToken mutation. */
export async function revokeByGraphql(base: string, boot: Bootstrap, token: string) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($t: String!, $r: ID) { revokeToken(token: $t, realm: $r) }',
      variables: { t: token, r: boot.realm },
    }),
  });
  expect(await res.json()).toEqual({ data: { revokeToken: true } });
}

/** A refresh token used twice: the second use ends the session (and the tokens the first use gave). */
export async function reuseRefreshToken(base: string, boot: Bootstrap, first: Tokens): Promise<Tokens> {
  const refresh = (t: string) => form(base, 'user/login', { realm: boot.realm, grant_type: 'refresh_token', refresh_token: t });
  const rotated = await refresh(first.refresh_token);
  expect(rotated.status).toBe(200);
  expect((await refresh(first.refresh_token)).body).toMatchObject({ error: 'invalid_grant' });
  return rotated.body;
}
