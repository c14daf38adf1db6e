/**
 * Keeping a benchmark's load generator off the server's cores. On a machine with few cores
 * (this project's CI VM has two), autocannon and the server share them: whatever the server does
 * beside answering (garbage collection on V8's helper threads, exporting spans) then slows the load
 * generator too, and the server is charged twice for it. With `taskset` (Linux) and at least two
 * cores, the servers run on every core but the last and this process (autocannon, any sink) on the
 * last. BENCH_PIN=0 leaves the OS to place them.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface CoreSplit {
  /** How a server's command starts: `taskset -c 0-<n-2>`. */
  serverPrefix: string[];
  /** A line for the bench's header. */
  describe: string;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (all its threads) to the last core and returns how to start servers on the others; undefined when it cannot or should not. */
export function splitCores(): CoreSplit | undefined {
  const cores = availableParallelism();
  if (process.env.BENCH_PIN === '0' || process.platform !== 'linux' || cores < 2 || !hasTaskset()) return undefined;
  const last = cores - 1;
  const servers = last === 1 ? '0' : `0-${last - 1}`;
  execFileSync('taskset', ['-a', '-p', '-c', String(last), String(process.pid)], { stdio: 'ignore' });
  return {
    serverPrefix: ['taskset', '-c', servers],
    describe: `cores: the servers on ${servers}, this process (autocannon, the OTLP sink) on ${last} (taskset; BENCH_PIN=0 turns it off)`,
  };
}
