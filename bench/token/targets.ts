/** What `npm run bench` loads on the baseline and the platform (the peer's target is in peer.ts). */
import { decodeProtectedHeader } from 'jose';
import type { Target } from '../shared/load';

export interface Bootstrap {
  realm: string;
  client_id: string;
  client_secret: string;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** "JWT, alg RS256, typ at+jwt" for a compact JWS, so the output shows both sides sign alike. */
export function describeJwt(token: string): { alg: string; text: string } {
  try {
    const h = decodeProtectedHeader(token);
    return { alg: String(h.alg), text: `JWT, alg ${String(h.alg)}, typ ${h.typ ?? 'none'}` };
  } catch {
    return { alg: 'none', text: `not a JWT (${token.length} characters)` };
  }
}

export const baselineTarget = (baselineUrl: string): Target => ({
  name: 'baseline: bare express POST /',
  method: 'POST',
  url: `${baselineUrl}/`,
  check: (j) => isObject(j) && j.msg === 'ok',
  marker: '"msg":"ok"',
});

/** The platform's client-credentials grant: the credentials go in the query string, no body. */
export function tokenTarget(platformUrl: string, boot: Bootstrap): Target {
  const credentials = new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret });
  return {
    name: 'platform: token client credentials',
    method: 'POST',
    url: `${platformUrl}/auth/api/v1/oauth/connect/token?${credentials}`,
    check: (j) => isObject(j) && typeof j.access_token === 'string',
    marker: '"access_token":"',
  };
}

/** One access token from the platform, outside any measured run. */
export async function issue(platformUrl: string, boot: Bootstrap): Promise<string> {
  const res = await fetch(tokenTarget(platformUrl, boot).url, { method: 'POST', signal: AbortSignal.timeout(10_000) }).catch(
    (err: Error & { cause?: Error }) => {
      throw new Error(`could not get a platform token: ${err.cause?.message ?? err.message}`);
    },
  );
  const text = await res.text();
  const json: unknown = res.status === 200 ? JSON.parse(text) : undefined;
  if (!isObject(json) || typeof json.access_token !== 'string') {
    throw new Error(`could not get a platform token: status ${res.status}, body ${text.slice(0, 300)}`);
  }
  return json.access_token;
}

/** Introspection of a fresh token (fetched when this is called, just before the run). */
export const introspectTarget = async (platformUrl: string, boot: Bootstrap): Promise<Target> => ({
  name: 'platform: introspect (form body)',
  method: 'POST',
  url: `${platformUrl}/auth/api/v1/oauth/connect/introspect`,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ token: await issue(platformUrl, boot), realm: boot.realm }).toString(),
  check: (j) => isObject(j) && j.active === 'true',
  marker: '"active":"true"',
});
