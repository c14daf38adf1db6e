import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { freePort, startChild, waitHealthy, type Child } from '../shared/procs';

/** A platform build to measure: the folder holding its `dist/` (this checkout, or another commit's worktree). */
export interface Build {
  name: string;
  root: string;
}

export interface Started {
  urls: string[];
  /** Each process's log (the access log when LOG_LEVEL=info). */
  logs: string[];
  dataDirs: string[];
  boot: Record<string, string>;
  children: Child[];
}

/**
 * `platform start` of `build` (`count` replicas when `env` names a database, else one with WORKERS),
 * ready to serve. Only `env` names a database or Redis: the bench's own DATABASE_URL is the server
 * it makes databases on, never one to start on.
 */
export async function startBuild(build: Build, dir: string, env: Record<string, string>, count = 1): Promise<Started> {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  const platformJs = join(build.root, 'dist', 'bin', 'platform.js');
  if (!existsSync(platformJs)) throw new Error(`${platformJs} is missing: build ${build.root} first`);
  const urls: string[] = [];
  const logs: string[] = [];
  const dataDirs: string[] = [];
  const children: Child[] = [];
  const publicPort = await freePort();
  let bootFile = '';
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const dataDir = mkdtempSync(join(dir, `${build.name}-data-`));
    const url = `http://127.0.0.1:${port}`;
    const logFile = join(dir, `${build.name}-${i}.log`);
    logs.push(logFile);
    const child = startChild(`${build.name}#${i}`, [platformJs, 'start'], {
      cwd: build.root,
      logFile,
      env: {
        ...inherited,
        METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        PLATFORM_DATA_DIR: dataDir,
        PUBLIC_URL: count > 1 ? `http://127.0.0.1:${publicPort}` : '',
        OTEL_TRACES_EXPORTER: 'none',
        ...env,
      },
    });
    children.push(child);
    await waitHealthy(`${url}/healthz`, child, 180_000);
    urls.push(url);
    dataDirs.push(dataDir);
    // The first replica (or the only process) made the demo credentials.
    if (i === 0) {
      bootFile = join(dataDir, 'bootstrap.json');
      for (let k = 0; k < 600 && !existsSync(bootFile); k++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  const boot = JSON.parse(readFileSync(bootFile, 'utf8')) as Record<string, string>;
  return { urls, logs, dataDirs, boot, children };
}

/** A fresh session of the demo client (or of `client`): its access token. */
export async function clientToken(
  url: string,
  boot: Record<string, string>,
  client = { id: boot.client_id, secret: boot.client_secret },
): Promise<string> {
  const res = await fetch(`${url}/auth/api/v1/oauth/connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ realm: boot.realm, client_id: client.id, client_secret: client.secret }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** An authenticated route that does nothing else of note: an object that does not exist (404 when the token is accepted). */
export const probePath = (): string => `/cl/search/api/v2/objects/${randomUUID()}`;

/** Whether the token is accepted (404) or refused (401) on one pinned connection. */
async function accepted(conn: Client, token: string): Promise<boolean> {
  const r = await conn.request({ path: probePath(), method: 'GET', headers: { authorization: `Bearer ${token}` } });
  await r.body.dump();
  if (r.statusCode === 404) return true;
  if (r.statusCode === 401) return false;
  throw new Error(`probe: ${r.statusCode}`);
}

/**
 * One revocation: a fresh token accepted on every connection of `conns` (each a TCP connection of
 * its own, on another worker or replica than `revoking`), revoked (RFC 7009) through `revoking`, then
 * asked on every connection back to back until each refuses it. Milliseconds from
 * the revocation's answer to the slowest connection's first refusal; undefined when a connection
 * still accepted it after `timeoutMs`.
 */
export async function oneRevocation(
  issueUrl: string,
  revoking: Client,
  conns: Client[],
  boot: Record<string, string>,
  timeoutMs: number,
): Promise<number | undefined> {
  const token = await clientToken(issueUrl, boot);
  for (const c of conns) if (!(await accepted(c, token))) throw new Error('a fresh token was refused');
  // At a random moment: one revocation after another would otherwise fall at the same point of the followers' polls.
  await new Promise((r) => setTimeout(r, Math.random() * 250));
  const res = await revoking.request({
    path: '/auth/api/v1/oauth/connect/revoke',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ realm: boot.realm, token }).toString(),
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`revoke: ${res.statusCode}`);
  const t0 = performance.now();
  const firstRefusal = await Promise.all(
    conns.map(async (c) => {
      while (performance.now() - t0 < timeoutMs) if (!(await accepted(c, token))) return performance.now() - t0;
      return undefined;
    }),
  );
  return firstRefusal.some((t) => t === undefined) ? undefined : Math.max(...(firstRefusal as number[]));
}

/** The pid of the worker process serving `conn`, from the access log (LOG_LEVEL=info): one request with an id of its own, read back. */
export async function pidOf(conn: Client, logFile: string): Promise<number> {
  const id = randomUUID();
  await (await conn.request({ path: '/healthz', method: 'GET', headers: { 'x-request-id': id } })).body.dump();
  for (let i = 0; i < 200; i++) {
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.startsWith('{') || !line.includes(id)) continue;
      const e = JSON.parse(line) as { msg?: string; reqId?: string; pid?: number };
      if (e.msg === 'request' && e.reqId === id) return e.pid!;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no access log line for request ${id}`);
}

/**
 * Connections to `url` of two worker processes: `revoking` (one connection, where revocations are
 * made) and `others` (two on the other worker, where they must be refused). Connections are opened
 * one at a time until both workers have served some (the primary hands new connections out in turn,
 * mostly).
 */
export async function onTwoWorkers(url: string, logFile: string): Promise<{ revoking: Client; others: Client[]; unused: Client[] }> {
  const byPid = new Map<number, Client[]>();
  for (let i = 0; i < 40; i++) {
    const c = new Client(url, { pipelining: 1 });
    const pid = await pidOf(c, logFile);
    byPid.set(pid, [...(byPid.get(pid) ?? []), c]);
    const groups = [...byPid.values()];
    if (groups.length >= 2 && groups.some((g) => g.length >= 2)) {
      const others = groups.find((g) => g.length >= 2)!;
      const revoking = groups.find((g) => g !== others)!;
      return { revoking: revoking[0], others: others.slice(0, 2), unused: [...revoking.slice(1), ...others.slice(2)] };
    }
  }
  throw new Error('40 connections all reached one worker');
}

export const pinned = (url: string, n: number) => Array.from({ length: n }, () => new Client(url, { pipelining: 1 }));

export function summary(ms: (number | undefined)[], timeoutMs: number): string {
  const got = ms.filter((m): m is number => m !== undefined).sort((a, b) => a - b);
  const never = ms.length - got.length;
  if (got.length === 0) return `never within ${timeoutMs / 1000} s (${ms.length} of ${ms.length}: the token works until it expires)`;
  const p = (q: number) => got[Math.min(got.length - 1, Math.floor(q * got.length))].toFixed(1);
  return `p50 ${p(0.5)} ms, p90 ${p(0.9)} ms, max ${got.at(-1)!.toFixed(1)} ms over ${ms.length}${never ? `, ${never} never within ${timeoutMs / 1000} s` : ''}`;
}
