/** The measured parts of `npm run bench:auth-flood`: /healthz probes, valid calls, one flood. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Row {
  name: string;
  answers: string;
  floodMs: string;
  health: { p50: string; p99: string; max: string; n: number };
  clientMs: string;
  loginMs: string;
}

export interface Valid {
  client: { client_id: string; client_secret: string };
  password: string;
}

export interface Flood {
  name: string;
  form: (i: number) => Record<string, string>;
  path: 'token' | 'login';
  from: string;
  validFrom: string;
}

const PATHS = { token: '/auth/api/v1/oauth/connect/token', login: '/auth/api/v1/oauth/connect/user/login' };
const ms = (v: number) => v.toFixed(1);

/** POSTs a form as `from` (X-Forwarded-For; the server trusts loopback); resolves to status and time. */
async function post(url: string, path: 'token' | 'login', from: string, form: Record<string, string>) {
  const t0 = performance.now();
  const res = await fetch(url + PATHS[path], {
    method: 'POST',
    headers: { 'x-forwarded-for': from, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

/** Nearest-rank percentiles of /healthz probes sent one at a time until `done()` (at least `min`). */
async function probeHealth(url: string, done: () => boolean, min: number): Promise<Row['health']> {
  const times: number[] = [];
  while (!done() || times.length < min) {
    const t0 = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    await sleep(5);
  }
  times.sort((a, b) => a - b);
  const rank = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
  return { p50: ms(rank(0.5)), p99: ms(rank(0.99)), max: ms(times.at(-1)!), n: times.length };
}

/** The valid calls from `from`: a client-credentials token and a login of `username`, both must be 200. */
async function validCalls(url: string, realm: string, valid: Valid, from: string, username: string) {
  const [client, login] = await Promise.all([
    post(url, 'token', from, { realm, ...valid.client }),
    post(url, 'login', from, { realm, username, password: valid.password }),
  ]);
  if (client.status !== 200 || login.status !== 200) throw new Error(`valid calls answered ${client.status} and ${login.status}`);
  return { clientMs: ms(client.ms), loginMs: ms(login.ms) };
}

export async function idle(url: string, realm: string, valid: Valid, username: string, probes: number): Promise<Row> {
  const health = await probeHealth(url, () => true, probes);
  return { name: 'idle', answers: '-', floodMs: '-', health, ...(await validCalls(url, realm, valid, '203.0.113.100', username)) };
}

/** 60 parallel wrong credentials from one address; 50 ms in, the valid calls from another. */
export async function floodOnce(url: string, realm: string, flood: Flood, valid: Valid, username: string): Promise<Row> {
  let finished = false;
  let floodMs = '';
  const t0 = performance.now();
  const sent = Array.from({ length: 60 }, (_, i) => post(url, flood.path, flood.from, { realm, ...flood.form(i) }));
  const all = Promise.all(sent).then((r) => {
    finished = true;
    floodMs = ms(performance.now() - t0);
    return r;
  });
  const health = probeHealth(url, () => finished, 20);
  await sleep(50);
  const calls = await validCalls(url, realm, valid, flood.validFrom, username);
  const answers = await all;
  const tally = new Map<number, number>();
  for (const a of answers) tally.set(a.status, (tally.get(a.status) ?? 0) + 1);
  const text = [...tally]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${n}×${s}`)
    .join(', ');
  return { name: flood.name, answers: text, floodMs, health: await health, ...calls };
}
