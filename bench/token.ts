/**
 * `npm run bench`: throughput and latency of the token service next to a bare express baseline,
 * both measured in this run on this machine. Needs `npm run build` first.
 *
 * Env: BENCH_SECONDS (10) per measured run, BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2,
 * discarded). Exits non-zero when anything fails, including any non-2xx response during a run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { load, stopLoad, verify, type Measured } from './load';
import { alive, freePort, killAllSync, startChild, stopAll, waitHealthy } from './procs';
import { problems, table } from './report';
import { targets, type Bootstrap } from './targets';

const ROOT = resolve(__dirname, '..', '..');
const PLATFORM_JS = join('dist', 'bin', 'platform.js');
const BASELINE_JS = join(__dirname, 'baseline.js');

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be an integer >= ${min}, not '${raw}'`);
  return v;
}

/** Holds the platform's data dir and both children's logs; removed at the end. */
let tempDir: string | undefined;
const removeTempDir = () => {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
};

async function main(): Promise<number> {
  const seconds = intEnv('BENCH_SECONDS', 10, 1);
  const connections = intEnv('BENCH_CONNECTIONS', 50, 1);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 2, 0);
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');
  if (!existsSync(join(ROOT, PLATFORM_JS))) throw new Error(`${PLATFORM_JS} is missing: run 'npm run build' first`);

  tempDir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const dataDir = join(tempDir, 'data');
  mkdirSync(dataDir);
  const platformPort = await freePort();
  let baselinePort = await freePort();
  while (baselinePort === platformPort) baselinePort = await freePort();
  const platformUrl = `http://127.0.0.1:${platformPort}`;
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;

  const env = { ...process.env, HOST: '127.0.0.1', PUBLIC_URL: '', SUBGRAPH_TOKEN_URL: '' };
  const platform = startChild('platform', [PLATFORM_JS, 'start'], {
    cwd: ROOT,
    env: { ...env, PORT: String(platformPort), PLATFORM_DATA_DIR: dataDir },
    logFile: join(tempDir, 'platform.log'),
  });
  const baseline = startChild('baseline', [BASELINE_JS], {
    cwd: ROOT,
    env: { ...env, PORT: String(baselinePort) },
    logFile: join(tempDir, 'baseline.log'),
  });
  await Promise.all([waitHealthy(`${platformUrl}/healthz`, platform), waitHealthy(`${baselineUrl}/`, baseline)]);
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;

  const out = process.stdout;
  const cpu = cpus();
  out.write(`node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}, load average before start ${loadBefore}\n`);
  const warm = warmup > 0 ? `after a ${warmup} s warm-up (discarded)` : 'no warm-up';
  out.write(`autocannon: ${connections} connections, pipelining 1, ${seconds} s per run, ${warm}; `);
  out.write(`platform and baseline in their own processes (output to files; LOG_LEVEL ${process.env.LOG_LEVEL || 'info (default)'}), load from this one\n`);
  out.write(`latencies: exact nearest-rank percentiles of 2xx response times; req/s: mean of 1-s samples\n\n`);

  const rows: Measured[] = [];
  const failures: string[] = [];
  try {
    for (const make of targets(baselineUrl, platformUrl, boot)) {
      const target = await make();
      await verify(target);
      if (warmup > 0) {
        const bad = problems(await load(target, warmup, connections));
        if (bad) failures.push(`warm-up ${bad}`);
      }
      await verify(target);
      out.write(`running ${target.name} (${seconds} s)...\n`);
      const m = await load(target, seconds, connections);
      rows.push(m);
      const bad = problems(m);
      if (bad) failures.push(bad);
      out.write(`  ${m.requests} responses, status codes ${m.codes || 'none'}, ${m.errors} connection errors\n`);
    }
  } catch (err) {
    failures.push(`stopped early: ${(err as Error)?.message ?? String(err)}`);
  }
  if (failures.length) await sleep(500); // a child killed mid-run may not have been reaped yet
  for (const child of [platform, baseline]) {
    if (!alive(child)) failures.push(`${child.name} exited (${await child.exited}) during the bench; its last output:\n${child.output()}`);
  }

  out.write(`\n${table(rows, rows[0])}\n\n`);
  if (failures.length) {
    out.write(`FAILED (the figures above include these errors):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

let finishing = false;
async function finish(code: number): Promise<never> {
  if (!finishing) {
    finishing = true;
    stopLoad();
    await stopAll();
    removeTempDir();
  }
  process.exit(code);
}

process.on('exit', () => {
  killAllSync();
  removeTempDir();
});
process.once('SIGINT', () => {
  process.stderr.write('\nbench: interrupted, cleaning up\n');
  void finish(130);
});
process.once('SIGTERM', () => void finish(143));

main().then(
  (code) => finish(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? String(err)}\n`);
    return finish(1);
  },
);
