import type { PgPool } from '../../shared/postgres';
import type { SearchStores } from '../ports';
import { pgAdminStore } from './admin';
import { pgIndexFeeds } from './feeds';
import { pgObjectStore } from './objects';
import { pgIndexQueries } from './queries';
import { changeWatch, type WatchOptions } from './watch';

export { SEARCH_PG_MIGRATIONS } from './schema';

/**
 * The search store in PostgreSQL (DATABASE_URL), shared by every replica: the pool is the
 * process's (this store does not end it); the store holds one more connection of its own, the
 * one that listens for other replicas' changes, ended by `close`.
 */
export function pgSearchStores(pool: PgPool, opts: WatchOptions = {}): SearchStores {
  const watch = changeWatch(pool, opts);
  return {
    objects: pgObjectStore(pool, watch.saw),
    queries: pgIndexQueries(pool),
    feeds: pgIndexFeeds(pool, watch.version),
    admin: pgAdminStore(pool, watch.saw),
    close: () => watch.close(),
  };
}
