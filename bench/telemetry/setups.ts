/**
 * The three platforms `npm run bench:telemetry` compares, each `platform start` with WORKERS=1 over
 * a fresh data dir of its own: telemetry off (the baseline), Prometheus metrics on, OTLP traces on
 * (to the bench's sink, a batch every second). Everything else in their environment is the same.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bootstrap } from '../token/targets';
import { startChild, waitHealthy, type Child } from '../shared/procs';
import { ROOT } from '../shared/platform';

export type SetupKey = 'a' | 'b' | 'c';

export interface Setup {
  key: SetupKey;
  name: string;
  /** The telemetry settings it differs by, as printed. */
  settings: string;
  child: Child;
  url: string;
  boot: Bootstrap;
  /** Where it serves /metrics (b only). */
  metricsUrl?: string;
  logFile: string;
}

const PLATFORM_JS = join('dist', 'bin', 'platform.js');

/** This environment without stores or telemetry settings of its own, so the three differ only where the bench says. */
function commonEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    WORKERS: '1',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    PUBLIC_URL: '',
    SUBGRAPH_TOKEN_URL: '',
  };
  for (const name of Object.keys(env))
    if (/^(OTEL_|METRICS_)/.test(name) || name === 'DATABASE_URL' || name === 'REDIS_URL') delete env[name];
  return env;
}

export interface SetupPorts {
  port: number;
  metricsPort: number;
  sinkUrl: string;
  /** How the platform's command starts (bench/shared/cores.ts), when it is kept off the load generator's core. */
  prefix?: string[];
}

const TELEMETRY: Record<SetupKey, (p: SetupPorts) => { name: string; env: Record<string, string> }> = {
  a: () => ({ name: '(a) baseline: metrics and traces off', env: { METRICS_PORT: '0', OTEL_TRACES_EXPORTER: 'none' } }),
  b: (p) => ({ name: '(b) metrics on', env: { METRICS_PORT: String(p.metricsPort), OTEL_TRACES_EXPORTER: 'none' } }),
  c: (p) => ({
    name: '(c) traces on',
    env: {
      METRICS_PORT: '0',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: p.sinkUrl,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      // The sampler and protocol are the operator's to try (their defaults: every trace, http/protobuf).
      ...(process.env.OTEL_TRACES_SAMPLER ? { OTEL_TRACES_SAMPLER: process.env.OTEL_TRACES_SAMPLER } : {}),
      ...(process.env.OTEL_TRACES_SAMPLER_ARG ? { OTEL_TRACES_SAMPLER_ARG: process.env.OTEL_TRACES_SAMPLER_ARG } : {}),
      ...(process.env.OTEL_EXPORTER_OTLP_PROTOCOL ? { OTEL_EXPORTER_OTLP_PROTOCOL: process.env.OTEL_EXPORTER_OTLP_PROTOCOL } : {}),
    },
  }),
};

/** Starts one setup under `dir` and waits until it answers and has written its bootstrap. */
export async function startSetup(key: SetupKey, dir: string, ports: SetupPorts): Promise<Setup> {
  const home = join(dir, key);
  const dataDir = join(home, 'data');
  mkdirSync(dataDir, { recursive: true });
  const { name, env } = TELEMETRY[key](ports);
  const logFile = join(home, 'platform.log');
  const child = startChild(`platform ${name}`, [PLATFORM_JS, 'start'], {
    cwd: ROOT,
    env: { ...commonEnv(ports.port, dataDir), ...env },
    logFile,
    prefix: ports.prefix,
  });
  const url = `http://127.0.0.1:${ports.port}`;
  await waitHealthy(`${url}/healthz`, child, 90_000);
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  return {
    key,
    name,
    child,
    url,
    boot,
    logFile,
    settings: Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    ...(key === 'b' ? { metricsUrl: `http://127.0.0.1:${ports.metricsPort}/metrics` } : {}),
  };
}
