/**
 * `npm run bench:scale`: token issue, introspection and full-text search per second on SQLite and
 * on PostgreSQL + Redis (one replica each, same run), then one, two and three PostgreSQL replicas
 * behind nginx with the documented configuration (docs/deploy/nginx-platform.conf). Every platform
 * is its own `platform start` process with WORKERS=1, so N replicas are N processes; on this
 * machine's cores the replicas, nginx, PostgreSQL, Redis and autocannon all share the CPU, so the
 * nginx rows show the overhead of the hop and of more processes, not growth.
 *
 * PostgreSQL: a fresh database on the server of DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped at the end; Redis: REDIS_URL (default
 * redis://127.0.0.1:6379) under a key prefix of its own, removed at the end. The corpus: SciFact's
 * first BENCH_SCALE_DOCS (1000) abstracts from bench/datasets/scifact, ingested into each store.
 *
 * Env: BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2), BENCH_SCALE_DOCS,
 * BENCH_SCALE_REPLICAS (3), NGINX_PATH, LOG_LEVEL (warn). Needs `npm run build` first. Exits
 * non-zero on any failure, including any non-2xx answer; the target is reported, not enforced.
 */
import { treeCpuSeconds } from '../shared/cpu';
import { load, verify, type Measured } from '../shared/load';
import { startNginx, NGINX, type Nginx } from '../shared/nginx';
import { freePorts, logWarnings, makeTempDir, ROOT, runBench, stopMeasured } from '../shared/platform';
import { problems } from '../shared/report';
import { header, loadAverage, settings } from '../shared/settings';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, freshDatabase, freshRedisPrefix, type FreshDatabase } from '../shared/shared-state';
import { loadPaths } from '../search/load';
import { bootstrapOf, startReplica, type Replica } from './replicas';
import { pgVsSqlite, replicasVsOne, resultsTable, type Row } from './report';
import { corpus, ENDPOINTS, ingest, loadOf } from './targets';

const SQLITE = 'SQLite, 1 replica';
const PG = 'PostgreSQL + Redis, 1 replica';
const behind = (n: number) => `nginx, ${n} PostgreSQL replica${n > 1 ? 's' : ''}`;

function intEnv(name: string, fallback: number, min: number, max: number): number {
  const v = Number(process.env[name] || fallback);
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return v;
}

async function main(): Promise<number> {
  const loadBefore = loadAverage();
  const s = settings();
  const docs = intEnv('BENCH_SCALE_DOCS', 1000, 10, 5183);
  const most = intEnv('BENCH_SCALE_REPLICAS', 3, 1, 8);
  const serverUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  const c = corpus(docs);
  const out = process.stdout;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  out.write(
    `${header(s, loadBefore)
      .split('\n')
      .filter((l) => !l.includes('cold run') && !l.startsWith('platform:'))
      .join('\n')}\n`,
  );
  out.write(
    `platforms: \`platform start\` with WORKERS=1 each (one process per replica, so 1, 2 and 3 replicas compare process for process), ` +
      `LOG_LEVEL=${process.env.LOG_LEVEL || 'warn'}; autocannon ${s.connections} connections, ${s.seconds} s per run after ${s.warmup} s warm-up\n`,
  );
  out.write(
    `corpus: SciFact's first ${c.docs.length} abstracts, ${c.paths.length} test queries (full text, page_size 20); ` +
      `PostgreSQL server ${new URL(serverUrl).host}, Redis ${new URL(redisUrl).host}\n\n`,
  );

  const dir = makeTempDir('platform-bench-scale-');
  const rows: Row[] = [];
  const failures: string[] = [];
  const notes: string[] = [];
  const running: Replica[] = [];
  let db: FreshDatabase | undefined;
  let redis: ReturnType<typeof freshRedisPrefix> | undefined;
  let nginx: Nginx | undefined;

  /** Warm-up (discarded), then the measured run, with the CPU of `pids`' process trees and of PostgreSQL. */
  const measureSetup = async (setup: string, url: string, boot: ReturnType<typeof bootstrapOf>, pids: (number | undefined)[]) => {
    for (const endpoint of ENDPOINTS) {
      const l = await loadOf(endpoint, url, boot, c);
      if (l.kind === 'one') await verify(l.target);
      const run = (secs: number): Promise<Measured> =>
        l.kind === 'one' ? load(l.target, secs, s.connections) : loadPaths(l.target, secs, s.connections);
      if (s.warmup > 0) {
        const bad = problems(await run(s.warmup));
        if (bad) failures.push(`${setup}: warm-up ${bad}`);
      }
      say(`${setup}: ${endpoint} (${s.seconds} s)...`);
      const cpu = () => pids.reduce<number>((sum, p) => sum + (treeCpuSeconds(p) ?? Number.NaN), 0);
      const dbCpu = () => treeCpuSeconds(db?.postmasterPid);
      const [before, dbBefore] = [cpu(), dbCpu()];
      const m = await run(s.seconds);
      const [after, dbAfter] = [cpu(), dbCpu()];
      const per = (a: number | undefined, b: number | undefined) =>
        a !== undefined && b !== undefined && Number.isFinite(a - b) && m.requests ? ((b - a) * 1000) / m.requests : undefined;
      const row: Row = {
        setup,
        endpoint,
        m,
        platformCpuMs: per(before, after),
        dbCpuMs: setup === SQLITE ? undefined : per(dbBefore, dbAfter),
      };
      rows.push(row);
      const bad = problems(m);
      if (bad) failures.push(`${setup}: ${bad}`);
      say(
        `  ${Math.round(m.rps)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms; status codes ${m.codes || 'none'}, ${m.errors} connection errors`,
      );
    }
  };
  const stop = async (r: Replica) => {
    await stopMeasured(r.child, failures);
    notes.push(...logWarnings(`${dir}/${r.name}.log`).map((w) => `${r.name}: ${w}`));
  };

  try {
    say('SQLite: starting one replica...');
    const lite = await startReplica(dir, 'sqlite');
    running.push(lite);
    const liteBoot = bootstrapOf(lite);
    say(`SQLite: ingested at ${(await ingest(lite.url, liteBoot, c, 'SQLite')).toFixed(0)} documents/s`);
    await measureSetup(SQLITE, lite.url, liteBoot, [lite.child.proc.pid]);
    await stop(running.pop()!);

    db = await freshDatabase(serverUrl);
    redis = freshRedisPrefix(redisUrl);
    const [nginxPort] = (await freePorts(1)) as [number];
    const shared = { databaseUrl: db.url, redisUrl, redisPrefix: redis.prefix, publicUrl: `http://127.0.0.1:${nginxPort}` };
    say('PostgreSQL: starting the first replica...');
    const first = await startReplica(dir, 'pg-1', shared);
    running.push(first);
    const boot = bootstrapOf(first);
    say(`PostgreSQL: ingested at ${(await ingest(first.url, boot, c, 'PostgreSQL')).toFixed(0)} documents/s`);
    await measureSetup(PG, first.url, boot, [first.child.proc.pid]);

    if (!NGINX) {
      notes.push('nginx rows skipped: no nginx found (apt-get install nginx, or set NGINX_PATH)');
    } else {
      const setups: string[] = [];
      for (let n = 1; n <= most; n++) {
        if (running.length < n) {
          say(`PostgreSQL: starting replica ${n} (it loads the indexes from the database before /readyz answers)...`);
          running.push(await startReplica(dir, `pg-${n}`, shared));
        }
        const replicas = running.slice(0, n);
        nginx = await startNginx(
          ROOT,
          nginxPort,
          replicas.map((r) => r.port),
        );
        await measureSetup(behind(n), nginx.url, boot, [...replicas.map((r) => r.child.proc.pid), nginx.pid]);
        const errors = nginx
          .errors()
          .split('\n')
          .filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
        if (errors.length) failures.push(`nginx with ${n} replicas logged ${errors.length} errors, first: ${errors[0]}`);
        await nginx.stop();
        nginx = undefined;
        setups.push(behind(n));
      }
      out.write(`${resultsTable(rows)}\n\n${pgVsSqlite(rows, SQLITE, PG)}\n\n${replicasVsOne(rows, setups)}\n\n`);
    }
    if (!NGINX) out.write(`${resultsTable(rows)}\n\n${pgVsSqlite(rows, SQLITE, PG)}\n\n`);
  } catch (err) {
    failures.push(`stopped early: ${(err as Error)?.stack ?? String(err)}`);
    if (rows.length) out.write(`${resultsTable(rows)}\n\n`);
  } finally {
    await nginx?.stop();
    while (running.length) await stop(running.pop()!);
    if (db) await db.drop().catch((err: Error) => failures.push(`dropping the bench database: ${err.message}`));
    if (redis) await redis.clear().catch((err: Error) => failures.push(`removing the bench's Redis keys: ${err.message}`));
  }

  if (notes.length) out.write(`notes:\n${notes.map((n) => `  - ${n}`).join('\n')}\n`);
  if (failures.length) {
    out.write(`FAILED (the figures above include these errors):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

runBench('bench:scale', main);
