/**
 * The shared state of replicas for the benches: a fresh PostgreSQL database created on the server
 * of DATABASE_URL (or postgres://postgres@127.0.0.1:5432/postgres) and dropped after, and a Redis
 * key prefix of its own whose keys are removed after.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Client } from 'pg';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

const onDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

async function onServer<T>(serverUrl: string, run: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: onDatabase(serverUrl, 'postgres') });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

export interface FreshDatabase {
  url: string;
  /** The pid of the server's postmaster (its backends are its children), for CPU figures; undefined when not local. */
  postmasterPid?: number;
  drop(): Promise<void>;
}

/** A new, empty database on the server of `serverUrl`, and how to drop it (with whatever is still connected). */
export async function freshDatabase(serverUrl: string): Promise<FreshDatabase> {
  const name = `platform_bench_${randomBytes(6).toString('hex')}`;
  // The backend's parent is read while the backend still runs (it ends with the connection).
  const postmasterPid = await onServer(serverUrl, async (c) => {
    await c.query(`CREATE DATABASE ${name}`);
    return postmasterOf(Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid));
  });
  return {
    url: onDatabase(serverUrl, name),
    postmasterPid,
    drop: () => onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The parent of a backend process, when it runs on this machine and /proc shows it. */
function postmasterOf(backend: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** A Redis key prefix of its own, and how to remove every key under it. */
export function freshRedisPrefix(redisUrl: string) {
  const prefix = `bench:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    async clear(): Promise<number> {
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      let removed = 0;
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length) removed += await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
      return removed;
    },
  };
}
