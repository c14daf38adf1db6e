/** What `npm run bench` loads: the baseline, client-credentials token issue, introspection. */
import type { Target } from './load';

export interface Bootstrap {
  realm: string;
  client_id: string;
  client_secret: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Each target is made just before its run (the introspection one fetches a fresh token). */
export function targets(baselineUrl: string, platformUrl: string, boot: Bootstrap): (() => Promise<Target>)[] {
  const credentials = new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret });
  const tokenUrl = `${platformUrl}/auth/api/v1/oauth/connect/token?${credentials}`;
  const issue = async (): Promise<string> => {
    const res = await fetch(tokenUrl, { method: 'POST', signal: AbortSignal.timeout(10_000) }).catch((err: Error & { cause?: Error }) => {
      throw new Error(`could not get a token to introspect: ${err.cause?.message ?? err.message}`);
    });
    const text = await res.text();
    const json: unknown = res.status === 200 ? JSON.parse(text) : undefined;
    if (!isObject(json) || typeof json.access_token !== 'string') {
      throw new Error(`could not get a token to introspect: status ${res.status}, body ${text.slice(0, 300)}`);
    }
    return json.access_token;
  };
  return [
    async () => ({
      name: 'baseline: bare express POST /',
      method: 'POST',
      url: `${baselineUrl}/`,
      check: (j) => isObject(j) && j.msg === 'ok',
      marker: '"msg":"ok"',
    }),
    async () => ({
      name: 'token: client credentials',
      method: 'POST',
      url: tokenUrl,
      check: (j) => isObject(j) && typeof j.access_token === 'string',
      marker: '"access_token":"',
    }),
    async () => ({
      name: 'introspect (form body)',
      method: 'POST',
      url: `${platformUrl}/auth/api/v1/oauth/connect/introspect`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: await issue(), realm: boot.realm }).toString(),
      check: (j) => isObject(j) && j.active === 'true',
      marker: '"active":"true"',
    }),
  ];
}
