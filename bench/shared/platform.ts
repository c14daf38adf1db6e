/**
 * What both search benches share around their measurements: the platform as a child process with
 * its own temporary data dir, its resident memory, and a main that always cleans up (children,
 * temp dir, a load run in progress), also on Ctrl-C.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, freePort, killAllSync, startChild, stopAll, stopChild, waitHealthy, type Child } from './procs';
import type { Bootstrap } from './http-client';
import { stopLoad } from './load';

export const ROOT = resolve(__dirname, '..', '..', '..');
const PLATFORM_JS = join('dist', 'bin', 'platform.js');
export const SEARCH_HEALTH = '/cl/search/api/v1/healthz/';

let tempDir: string | undefined;

export function makeTempDir(prefix: string): string {
  tempDir = mkdtempSync(join(tmpdir(), prefix));
  return tempDir;
}

const removeTempDir = () => {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
};

/** Worker processes the platform will run: WORKERS when set, else its own default (one per CPU). */
export const platformWorkers = () => Number(process.env.WORKERS || Math.min(64, availableParallelism()));

export interface Platform {
  child: Child;
  url: string;
  dataDir: string;
  boot: Bootstrap;
  logFile: string;
}

/**
 * Starts `platform start` on `port` over a fresh data dir inside `dir` and waits for the search
 * health route; `root` is the checkout whose build runs (this one's by default; another build, an
 * older commit's, to compare in the same run).
 */
export async function startPlatform(dir: string, port: number, root = ROOT): Promise<Platform> {
  if (!existsSync(resolve(root, PLATFORM_JS))) throw new Error(`${resolve(root, PLATFORM_JS)} is missing: run 'npm run build' first`);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const env = {
    ...process.env,
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    PUBLIC_URL: '',
  };
  const logFile = join(dir, 'platform.log');
  const child = startChild('platform', [PLATFORM_JS, 'start'], { cwd: root, env, logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}${SEARCH_HEALTH}`, child, 60_000);
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  return { child, url, dataDir, boot, logFile };
}

/** The platform's warnings and errors (pino JSON lines, level >= 40), counted by message, for the report. */
export function logWarnings(logFile: string): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      if ((entry.level ?? 0) < 40) continue;
      const what = `platform log level ${entry.level}: ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message})` : ''}`.slice(
        0,
        300,
      );
      counts.set(what, (counts.get(what) ?? 0) + 1);
    } catch {
      counts.set(`platform log: ${line.slice(0, 200)}`, 1);
    }
  }
  return [...counts].map(([what, n]) => `${what}: ${n}`);
}

/** VmRSS in MiB of `pid` and of every descendant (cluster workers), from /proc; empty off Linux. */
export function treeRssMiB(pid: number | undefined): { pid: number; mib: number }[] {
  if (pid === undefined) return [];
  const parentOf = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const status = readFileSync(`/proc/${d}/status`, 'utf8');
      parentOf.set(Number(d), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]));
      rss.set(Number(d), Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, parent] of parentOf) {
      if (tree.has(parent) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return [...tree].filter((p) => rss.has(p)).map((p) => ({ pid: p, mib: rss.get(p)! }));
}

/** `n` distinct ports the OS reports free now. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** Stops a child once measured; one that died on its own during the bench is a failure. */
export async function stopMeasured(child: Child, failures: string[]): Promise<void> {
  if (!alive(child)) await sleep(500); // a child killed mid-run may not have been reaped yet
  if (!alive(child)) failures.push(`${child.name} exited (${await child.exited}) during the bench; its last output:\n${child.output()}`);
  else await stopChild(child);
}

export function machineLine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}, load average before start ${load}`;
}

let finishing: Promise<never> | undefined;
/** Cleans up once and exits with the first code asked for; later calls (main ending after Ctrl-C) wait for it. */
function finish(code: number): Promise<never> {
  finishing ??= (async () => {
    stopLoad();
    await stopAll();
    removeTempDir();
    process.exit(code);
  })();
  return finishing;
}

/** Runs a bench's main: its resolved value is the exit code; a throw prints the stack and exits 1. */
export function runBench(name: string, main: () => Promise<number>): void {
  process.on('exit', () => {
    killAllSync();
    removeTempDir();
  });
  process.once('SIGINT', () => {
    process.stderr.write(`\n${name}: interrupted, cleaning up\n`);
    void finish(130);
  });
  process.once('SIGTERM', () => void finish(143));
  main().then(
    (code) => finish(code),
    (err: unknown) => {
      process.stderr.write(`${name}: ${(err as Error)?.stack ?? String(err)}\n`);
      return finish(1);
    },
  );
}
