import { pgSearchStores } from '../../../core/search/postgres';
import { describePg } from '../../shared/postgres';
import { searchTestDatabase } from './pg-fixture';
import { searchStoreContract } from './store-contracts';

/**
 * The search store on PostgreSQL passes the same contracts as search.db (DATABASE_URL): two pools
 * on one database, each with its store and its listening connection: two replicas.
 */
describePg('the search store on PostgreSQL', () => {
  const db = searchTestDatabase();
  searchStoreContract('PostgreSQL', async () => {
    const { pools, end } = await db.pools(2);
    const [one, two] = pools.map((pool) => pgSearchStores(pool, { pollMs: 200 })) as [
      ReturnType<typeof pgSearchStores>,
      ReturnType<typeof pgSearchStores>,
    ];
    return {
      one,
      two,
      close: async () => {
        await Promise.all([one.close(), two.close()]);
        await end();
      },
    };
  });
});
