/**
 * The platforms of `npm run bench:scale`: `platform start` processes with one worker each
 * (WORKERS=1, so one, two and three replicas compare process for process), on SQLite in a data
 * folder of their own, or on one PostgreSQL database and one Redis prefix shared by every replica.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bootstrap } from '../shared/http-client';
import { freePort, startChild, waitHealthy, type Child } from '../shared/procs';
import { ROOT } from '../shared/platform';

const PLATFORM_JS = join('dist', 'bin', 'platform.js');

export interface Replica {
  name: string;
  child: Child;
  port: number;
  url: string;
  dataDir: string;
}

export interface Shared {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Where PUBLIC_URL points: nginx's address, the same for every replica (token issuers derive from it). */
  publicUrl: string;
}

/** The environment of every platform: this one's, without the stores unless `shared` gives them. */
function envFor(port: number, dataDir: string, shared?: Shared): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    PORT: String(port),
    PLATFORM_DATA_DIR: dataDir,
    WORKERS: '1',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    PUBLIC_URL: '',
    SUBGRAPH_TOKEN_URL: '',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.REDIS_KEY_PREFIX;
  if (shared) {
    Object.assign(env, {
      DATABASE_URL: shared.databaseUrl,
      REDIS_URL: shared.redisUrl,
      REDIS_KEY_PREFIX: shared.redisPrefix,
      PUBLIC_URL: shared.publicUrl,
      TRUST_PROXY: 'loopback',
    });
  }
  return env;
}

/** Starts one platform in `dir/<name>` and waits until /readyz answers 200 (indexes loaded). */
export async function startReplica(dir: string, name: string, shared?: Shared): Promise<Replica> {
  const port = await freePort();
  const dataDir = join(dir, name);
  mkdirSync(dataDir);
  const child = startChild(name, [PLATFORM_JS, 'start'], {
    cwd: ROOT,
    env: envFor(port, dataDir, shared),
    logFile: join(dir, `${name}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/readyz`, child, 120_000);
  return { name, child, port, url, dataDir };
}

/** The realm and demo client the first start made (every replica of a set shares them). */
export const bootstrapOf = (r: Replica): Bootstrap => JSON.parse(readFileSync(join(r.dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
