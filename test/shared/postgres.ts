import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openPool, type PgPool } from '../../core/shared/postgres';

/** The PostgreSQL server the tests may use (`.ci/run` sets it); without it the PostgreSQL suites are skipped. */
export const DATABASE_URL = process.env.DATABASE_URL;
export const describePg: jest.Describe = DATABASE_URL ? describe : describe.skip;

/** The same server, its maintenance database (the one in DATABASE_URL may not exist yet). */
const serverUrl = (database: string) => {
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${database}`;
  return url.toString();
};

async function onServer<T>(run: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: serverUrl('postgres') });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

/** A new, empty database of its own on that server, and how to drop it (with whatever is still connected). */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `platform_test_${randomBytes(8).toString('hex')}`;
  await onServer((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: serverUrl(name),
    drop: () => onServer((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * One new database for a test file, migrated once, and, for each case, two pools on it (two
 * replicas): the port contracts' `Opened`, on a clock that moves only when a case advances it (the
 * stores keep the times they are given; none reads the time itself). Cases keep apart by their own names, so
 * they share the database; it is dropped after the file.
 */
export function sharedTestDatabase(migrations: { scope: string; sql: readonly string[] }[]) {
  let db: Promise<{ url: string; drop(): Promise<void> }> | undefined;
  const ready = () =>
    (db ??= (async () => {
      const fresh = await freshDatabase();
      const pool = openPool(fresh.url, { max: 1 });
      try {
        for (const m of migrations) await migrate(pool, m.scope, m.sql);
      } finally {
        await pool.end();
      }
      return fresh;
    })());
  afterAll(async () => {
    if (db) await (await db).drop();
  });
  return async <T>(adapter: (pool: PgPool) => T) => {
    const { url } = await ready();
    const pools = [openPool(url, { max: 4 }), openPool(url, { max: 4 })] as const;
    let now = Date.now();
    return {
      one: adapter(pools[0]),
      two: adapter(pools[1]),
      now: () => now,
      advance: async (ms: number) => {
        now += ms;
      },
      close: async () => {
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  };
}
