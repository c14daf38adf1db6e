import type { PgPool } from '../../shared/postgres';
import type { TokenStores } from '../ports';
import { withRealmCache } from '../realm-cache';
import { pgTokenStore } from './store';

/** The token service's state in PostgreSQL (DATABASE_URL), shared by every replica. */
export { TOKEN_PG_MIGRATIONS } from './schema';
export { pgTokenStore } from './store';
export { pgFailureCounter } from './failures';

/**
 * Every port of the token service in PostgreSQL (migrated with TOKEN_PG_MIGRATIONS), the store
 * every replica shares. Realms are read by every request: they are kept for half a second
 * (realm-cache.ts). The caller owns the pool (closing the stores does not end it).
 */
export function pgTokenStores(pool: PgPool): TokenStores {
  const store = withRealmCache(pgTokenStore(pool));
  return { store, throttles: store.failures };
}
