/**
 * `npm run bench:revocation`: how soon a revoked session is refused by the other processes, and
 * what the revoked-sessions list costs a request. Each build named in BENCH_BUILDS
 * (`name=folder,...`, each folder holding a built `dist/`; this checkout alone by default) is
 * started as `platform start` with WORKERS=2 (SQLite), and, with DATABASE_URL and REDIS_URL set,
 * as two replicas on a database of their own:
 * - propagation: BENCH_REVOCATIONS (50) times, a fresh client token accepted on two pinned
 *   connections of the other worker (the access log tells which worker serves a connection) or of
 *   replica B, revoked (RFC 7009) through a connection of the first worker or replica A, then asked
 *   on both connections back to back: milliseconds from the revocation's answer to the slower
 *   connection's first refusal (a build that never refuses is tried 3 times, BENCH_NEVER_MS each);
 * - the verifier alone, in this process: microseconds per verification without a list, with an empty
 *   one and with a loaded one (bench/token/revocation-verify.ts);
 * - cost: autocannon (16 connections, BENCH_SECONDS each, rounds alternating between the builds) on
 *   an authenticated REST route that does nothing else (an unknown object: 404) and on GraphQL
 *   `{ viewer { username } }`, WORKERS=1 each; the last build is also measured with a loaded list
 *   (1,000 revoked sessions and a disabled client of the token's realm: the path that hashes).
 * BENCH_PHASES picks some of `propagation,verify,cost` (all by default).
 * Needs `npm run build` (and each other build's). One run; figures vary with the machine's load.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client as Pg } from 'pg';
import { killAllSync, stopAll } from '../shared/procs';
import { loadAverage } from '../shared/settings';
import { clientToken, oneRevocation, onTwoWorkers, pinned, probePath, startBuild, summary, type Build } from './revocation-run';
import { verifyCost } from './revocation-verify';

const ROOT = resolve(__dirname, '..', '..', '..');
const builds: Build[] = (process.env.BENCH_BUILDS || `new=${ROOT}`).split(',').map((b) => {
  const [name, root] = b.split('=');
  return { name: name, root: resolve(root) };
});
const N = Number(process.env.BENCH_REVOCATIONS || 50);
const NEVER_MS = Number(process.env.BENCH_NEVER_MS || 3000);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const PHASES = new Set((process.env.BENCH_PHASES || 'propagation,verify,cost').split(','));
const out = (line = '') => process.stdout.write(`${line}\n`);

async function propagation(build: Build, dir: string, replicas: boolean): Promise<string> {
  let db: string | undefined;
  // The access log tells which worker served which connection.
  const env: Record<string, string> = { WORKERS: replicas ? '1' : '2', LOG_LEVEL: 'info' };
  if (replicas) {
    db = `bench_revocation_${process.pid}_${build.name.replace(/\W/g, '_')}`;
    const admin = new Pg({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${db}`;
    Object.assign(env, { DATABASE_URL: url.toString(), REDIS_URL: process.env.REDIS_URL!, REDIS_KEY_PREFIX: `bench:${db}:` });
  }
  try {
    const p = await startBuild(build, dir, env, replicas ? 2 : 1);
    const [a, b] = [p.urls[0], p.urls.at(-1)!];
    // Workers: revoked through a connection of one worker, asked on two of the other's; replicas:
    // revoked through A, asked on two connections to B.
    const { revoking, others, unused } = replicas
      ? { revoking: pinned(a, 1)[0], others: pinned(b, 2), unused: [] }
      : await onTwoWorkers(a, p.logs[0]);
    const ms: (number | undefined)[] = [];
    for (let i = 0; i < N; i++) {
      ms.push(await oneRevocation(a, revoking, others, p.boot, NEVER_MS));
      if (ms.filter((m) => m === undefined).length >= 3) break;
    }
    await Promise.all([revoking, ...others, ...unused].map((c) => c.close()));
    await stopAll();
    return summary(ms, NEVER_MS);
  } finally {
    if (db) {
      const admin = new Pg({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.end();
    }
  }
}

interface Target {
  name: string;
  url: string;
  token: string;
}

function autocannon(url: string, token: string, graphql: boolean): { rps: number; p50: number; p99: number } {
  const args = ['-c', '16', '-d', String(SECONDS), '-j', '-H', `authorization=Bearer ${token}`];
  const target = graphql
    ? [
        ...args,
        '-m',
        'POST',
        '-H',
        'content-type=application/json',
        '-b',
        JSON.stringify({ query: '{ viewer { username } }' }),
        `${url}/graphql`,
      ]
    : [...args, `${url}${probePath()}`];
  const r = JSON.parse(
    execFileSync(join(ROOT, 'node_modules', '.bin', 'autocannon'), target, { encoding: 'utf8', maxBuffer: 16 << 20 }),
  ) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; '2xx': number };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function cost(dir: string): Promise<string[]> {
  const targets: Target[] = [];
  for (const build of builds) {
    const p = await startBuild(build, dir, { WORKERS: '1' });
    targets.push({ name: build.name, url: p.urls[0], token: await clientToken(p.urls[0], p.boot) });
  }
  // The last build again, its list loaded: 1,000 sessions revoked and a client of the realm disabled.
  const last = builds.at(-1)!;
  const loaded = await startBuild({ ...last, name: `${last.name}-loaded` }, dir, { WORKERS: '1' });
  for (let i = 0; i < 1000; i++) {
    const t = await clientToken(loaded.urls[0], loaded.boot);
    await fetch(`${loaded.urls[0]}/auth/api/v1/oauth/connect/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ realm: loaded.boot.realm, token: t }),
    });
  }
  // A client of the same realm with a session, disabled: an entry that covers a whole client (each request then hashes).
  const cli = (...args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, [join(last.root, 'dist', 'bin', 'platform.js'), ...args], {
        env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PLATFORM_DATA_DIR: loaded.dataDirs[0], METRICS_PORT: '0' },
        encoding: 'utf8',
      }),
    ) as Record<string, string>;
  const gone = cli('client', 'create', '--client-id', 'gone');
  await clientToken(loaded.urls[0], loaded.boot, { id: 'gone', secret: gone.client_secret });
  cli('client', 'disable', '--client-id', 'gone');
  const list = (await (await fetch(`${loaded.urls[0]}/auth/api/v1/revocations`)).json()) as { entries: { kind: string }[] };
  const kinds = list.entries.reduce<Record<string, number>>((m, e) => ({ ...m, [e.kind]: (m[e.kind] ?? 0) + 1 }), {});
  targets.push({
    name: `${last.name}, list loaded (${Object.entries(kinds)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')})`,
    url: loaded.urls[0],
    token: await clientToken(loaded.urls[0], loaded.boot),
  });
  const rows: string[] = [];
  for (const graphql of [false, true]) {
    const got = new Map<string, { rps: number[]; p99: number[] }>();
    for (let round = 0; round < 3; round++) {
      for (const t of targets) {
        const r = autocannon(t.url, t.token, graphql);
        const g = got.get(t.name) ?? { rps: [], p99: [] };
        g.rps.push(r.rps);
        g.p99.push(r.p99);
        got.set(t.name, g);
      }
    }
    for (const [name, g] of got)
      rows.push(
        `| ${graphql ? 'GraphQL viewer' : 'REST, unknown object (404)'} | ${name} | ${g.rps.map((x) => x.toFixed(0)).join(' / ')} | ${g.p99.join(' / ')} |`,
      );
  }
  await stopAll();
  return rows;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-revocation-'));
  process.on('exit', () => {
    killAllSync();
    rmSync(dir, { recursive: true, force: true });
  });
  out(`bench:revocation  builds: ${builds.map((b) => `${b.name}=${b.root}`).join(', ')}  load before: ${loadAverage()}`);
  if (PHASES.has('propagation')) {
    out("\nrevoked -> refused by the other processes (ms from the revocation's answer to the slowest connection's first refusal):");
    for (const build of builds) out(`  ${build.name}, platform start WORKERS=2 (SQLite): ${await propagation(build, dir, false)}`);
    if (process.env.DATABASE_URL && process.env.REDIS_URL) {
      for (const build of builds) out(`  ${build.name}, two replicas (PostgreSQL): ${await propagation(build, dir, true)}`);
    }
  }
  if (PHASES.has('verify')) {
    out('\nthe verifier alone, in this process (median of 9 alternating rounds of 5,000 verifications):');
    out('| list | per verification | against no list |\n|---|---|---|');
    for (const row of await verifyCost()) out(row);
  }
  if (PHASES.has('cost')) {
    out(`\nper-request cost (autocannon -c 16 -d ${SECONDS}, WORKERS=1, three rounds alternating):`);
    out('| route | build | req/s per round | p99 ms per round |\n|---|---|---|---|');
    for (const row of await cost(dir)) out(row);
  }
  out(`\nload after: ${loadAverage()}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
