import { migrate, openPool } from '../../../core/shared/postgres';
import { openPgSearchStore, SEARCH_PG_MIGRATIONS } from '../../../core/search/postgres';
import { describePg, freshDatabase } from '../../shared/postgres';
import { searchStoreContract } from './store-contracts';

const TABLES = 'search_objects, search_object_text, search_chunks, search_terms, search_vectors, search_changes, search_tenants';

/**
 * The search store on PostgreSQL passes the same contracts as search.db (DATABASE_URL): one new
 * database for the file, emptied before each case (the contracts count passages and tenants of
 * the whole store), and two pools on it, each with its store and its listening connection: two
 * replicas.
 */
describePg('the search store on PostgreSQL', () => {
  let db: Promise<{ url: string; drop(): Promise<void> }> | undefined;
  const ready = () => (db ??= (async () => {
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

  searchStoreContract('PostgreSQL', async () => {
    const { url } = await ready();
    const pools = [openPool(url, { max: 4 }), openPool(url, { max: 4 })] as const;
    await pools[0].query(`TRUNCATE ${TABLES} RESTART IDENTITY CASCADE; UPDATE search_settings SET value = 1`);
    const [one, two] = pools.map((pool) => openPgSearchStore(pool, { pollMs: 200 })) as [ReturnType<typeof openPgSearchStore>, ReturnType<typeof openPgSearchStore>];
    return {
      one, two,
      close: async () => {
        await Promise.all([one.close(), two.close()]);
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  });
});
