import { migrate, openPool } from '../../../core/shared/postgres';
import { TOKEN_PG_MIGRATIONS, pgTokenStore } from '../../../core/token/postgres';
import { describePg, freshDatabase, sharedTestDatabase } from '../../shared/postgres';
import { tokenStoreContract } from './store-contracts';
import type { Opened } from './store-fixtures';
import type { TokenStore } from '../../../core/token/ports';

const MIGRATIONS = [{ scope: 'token', sql: TOKEN_PG_MIGRATIONS }];

/** A database of its own, migrated, with two pools on it (two replicas); dropped on close. */
async function freshStores(): Promise<Opened<TokenStore>> {
  const db = await freshDatabase();
  const pools = [openPool(db.url, { max: 4 }), openPool(db.url, { max: 4 })] as const;
  await migrate(pools[0], 'token', TOKEN_PG_MIGRATIONS);
  const [one, two] = pools.map((p) => pgTokenStore(p)) as [TokenStore, TokenStore];
  let now = Date.now();
  return {
    one, two,
    now: () => now,
    advance: async (ms) => void (now += ms),
    close: async () => {
      await Promise.all([one.close(), two.close()]);
      await Promise.all(pools.map((p) => p.end()));
      await db.drop();
    },
  };
}

/** The token store on PostgreSQL passes the same contract as token.db, two pools being two replicas (DATABASE_URL). */
describePg('the token store on PostgreSQL', () => {
  const shared = sharedTestDatabase(MIGRATIONS);
  tokenStoreContract('PostgreSQL', async (opts) => {
    if (opts?.fresh) return freshStores();
    const s = await shared((pool) => pgTokenStore(pool));
    return { ...s, close: async () => {
      await Promise.all([s.one.close(), s.two.close()]);
      await s.close();
    } };
  });
});
