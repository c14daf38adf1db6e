import { migrate, openPool, type PgPool } from '../../../core/shared/postgres';
import { SEARCH_PG_MIGRATIONS } from '../../../core/search/postgres';
import { freshDatabase } from '../../shared/postgres';

const TABLES = 'search_objects, search_object_text, search_chunks, search_terms, search_vectors, search_changes, search_tenants';

/**
 * One new database for a test file with the search tables, dropped after it; `pools(n)` empties
 * the tables (cases count passages and tenants of the whole store) and opens `n` pools on it, one
 * per replica, ended by `end`.
 */
export function searchTestDatabase() {
  let db: Promise<{ url: string; drop(): Promise<void> }> | undefined;
  const ready = () =>
    (db ??= (async () => {
      const fresh = await freshDatabase();
      const pool = openPool(fresh.url, { max: 1 });
      try {
        await migrate(pool, 'search', SEARCH_PG_MIGRATIONS);
      } finally {
        await pool.end();
      }
      return fresh;
    })());
  afterAll(async () => {
    if (db) await (await db).drop();
  });
  return {
    async pools(n: number): Promise<{ pools: PgPool[]; end(): Promise<void> }> {
      const { url } = await ready();
      const pools = Array.from({ length: n }, () => openPool(url, { max: 4 }));
      await pools[0].query(`TRUNCATE ${TABLES} RESTART IDENTITY CASCADE; UPDATE search_settings SET value = 1`);
      return { pools, end: async () => void (await Promise.all(pools.map((p) => p.end()))) };
    },
  };
}
