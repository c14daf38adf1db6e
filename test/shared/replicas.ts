import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../e2e/shared/processes';
import { freePort } from '../e2e/shared/server';
import { DATABASE_URL, freshDatabase } from './postgres';

export const REDIS_URL = process.env.REDIS_URL;
/** Replica tests need both servers (`.ci/run` sets both URLs). */
export const describeReplicas: jest.Describe = DATABASE_URL && REDIS_URL ? describe : describe.skip;

export interface Replica {
  url: string;
  port: number;
  dataDir: string;
  process: PlatformProcess;
}

export interface ReplicaSetOptions {
  count: number;
  /** Where PUBLIC_URL points (a load balancer's port); a port of its own when absent. */
  publicPort?: number;
  /** The database URL the replicas are given (through a proxy, say) instead of the fresh one. */
  databaseUrl?: (fresh: string) => string;
  env?: Record<string, string>;
}

/**
 * `count` separate `platform start` processes (one worker each) on one fresh PostgreSQL database
 * and one Redis key prefix of their own, as a deployment runs them: the same DATABASE_URL, REDIS_URL
 * and PUBLIC_URL, each its own port and data directory. The first starts alone (it makes the
 * default realm and the demo credentials: its bootstrap.json has them); the others then together.
 */
export async function startReplicas(opts: ReplicaSetOptions) {
  const db = await freshDatabase();
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const publicPort = opts.publicPort ?? (await freePort());
  const env = {
    DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(db.url) : db.url,
    REDIS_URL: REDIS_URL!,
    REDIS_KEY_PREFIX: prefix,
    PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
    TRUST_PROXY: 'loopback',
    WORKERS: '1',
    LOG_LEVEL: 'warn',
    MODELS_TEXT_THREADS: '0',
    ...opts.env,
  };
  const replicas: Replica[] = [];
  const start = async (): Promise<Replica> => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-replica-'));
    const proc = await startPlatformProcess(['start'], { ...env, PORT: String(port), PLATFORM_DATA_DIR: dataDir });
    return { url: `http://127.0.0.1:${port}`, port, dataDir, process: proc };
  };
  try {
    replicas.push(await start());
    replicas.push(...(await Promise.all(Array.from({ length: opts.count - 1 }, start))));
  } catch (err) {
    await Promise.all(replicas.map((r) => stopProcess(r.process.child)));
    await db.drop();
    throw err;
  }
  return {
    replicas,
    env,
    databaseUrl: db.url,
    publicUrl: env.PUBLIC_URL,
    /** The first start's credentials (realm, client, user, LM key). */
    credentials: () => JSON.parse(readFileSync(join(replicas[0].dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>,
    /** Starts replica `i` again on its port and data directory (after a kill or a stop). */
    async restart(i: number) {
      const r = replicas[i];
      r.process = await startPlatformProcess(['start'], { ...env, PORT: String(r.port), PLATFORM_DATA_DIR: r.dataDir });
    },
    kill(i: number, signal: NodeJS.Signals = 'SIGKILL') {
      const child = replicas[i].process.child;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      return exited;
    },
    async stop() {
      await Promise.all(replicas.map((r) => stopProcess(r.process.child)));
      for (const r of replicas) rmSync(r.dataDir, { recursive: true, force: true });
      await db.drop();
      const redis = new Redis(REDIS_URL!);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

export type ReplicaSet = Awaited<ReturnType<typeof startReplicas>>;

/** Kept here too: replica tests import it from this file. */
export { eventually } from './wait';
