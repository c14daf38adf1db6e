/** Child processes for `npm run bench`: free ports, start, wait for health, stop (also on exit). */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Child {
  name: string;
  proc: ChildProcess;
  /** The end of the child's stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with how the child ended ("code 0", "signal SIGTERM", ...). */
  exited: Promise<string>;
}

const children = new Set<Child>();

export const alive = (c: Child) => c.proc.exitCode === null && c.proc.signalCode === null;

export { freePort } from './ports';

/**
 * Starts `node <args>` with stdout and stderr going to `logFile` (a file, so nothing here has to
 * drain it); through `prefix` when given (`taskset -c 0`, which execs node in its own process).
 */
export function startChild(
  name: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; logFile: string; prefix?: string[] },
): Child {
  const fd = openSync(opts.logFile, 'a');
  // BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile there when it exits (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const [cmd, ...rest] = [...(opts.prefix ?? []), process.execPath, ...prof, ...args] as [string, ...string[]];
  const proc = spawn(cmd, rest, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const output = () => {
    try {
      return readFileSync(opts.logFile, 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  const exited = new Promise<string>((resolve) => {
    proc.once('error', (err) => resolve(`spawn error: ${err.message}`));
    proc.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
  });
  const child: Child = { name, proc, output, exited };
  children.add(child);
  return child;
}

/** Polls `url` until it answers 200; fails if the child dies first or `timeoutMs` passes. */
export async function waitHealthy(url: string, child: Child, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!alive(child)) {
      throw new Error(`${child.name} exited (${await child.exited}) before ${url} answered:\n${child.output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name}: ${url} not healthy after ${timeoutMs} ms (last: ${last}):\n${child.output()}`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export async function stopChild(child: Child, graceMs = 5000): Promise<void> {
  if (alive(child)) {
    child.proc.kill('SIGTERM');
    const timer = setTimeout(() => alive(child) && child.proc.kill('SIGKILL'), graceMs);
    await child.exited;
    clearTimeout(timer);
  }
  children.delete(child);
}

export const stopAll = () => Promise.all([...children].map((c) => stopChild(c)));

/** Last resort from a synchronous `exit` handler. */
export function killAllSync(): void {
  for (const c of children) if (alive(c)) c.proc.kill('SIGKILL');
}
