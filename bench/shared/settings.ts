/** `npm run bench` settings from the environment, and the header that states them in the output. */
import { cpus, loadavg } from 'node:os';

export interface Settings {
  /** Each measured warm run. */
  seconds: number;
  /** The platform's run right after start, with no warm-up. */
  coldSeconds: number;
  connections: number;
  /** Discarded load before each warm run. */
  warmup: number;
}

/** An integer setting from the environment, at least `min`; `fallback` when unset. */
export function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be an integer >= ${min}, not '${raw}'`);
  return v;
}

export const settings = (): Settings => ({
  seconds: intEnv('BENCH_SECONDS', 10, 1),
  coldSeconds: intEnv('BENCH_COLD_SECONDS', 8, 1),
  connections: intEnv('BENCH_CONNECTIONS', 50, 1),
  warmup: intEnv('BENCH_WARMUP_SECONDS', 2, 0),
});

/** Read before any child starts, so it shows what else the shared machine was doing. */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export function header(s: Settings, loadBefore: string): string {
  const cpu = cpus();
  const warm = s.warmup > 0 ? `after a ${s.warmup} s warm-up (discarded)` : 'no warm-up';
  return [
    `node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}, load average before start ${loadBefore}`,
    `autocannon: ${s.connections} connections, pipelining 1, ${s.seconds} s per run ${warm}; platform cold run ${s.coldSeconds} s, no warm-up`,
    // WORKERS is only passed through; the platform decides what "default" means.
    `platform: WORKERS=${process.env.WORKERS ?? 'default'}, LOG_LEVEL=${process.env.LOG_LEVEL || 'info (default)'}; ` +
      'each server in its own process (output to files), stopped once measured; load from this one',
    'latencies: exact nearest-rank percentiles of 2xx response times; req/s: mean of 1-s samples',
  ].join('\n');
}
