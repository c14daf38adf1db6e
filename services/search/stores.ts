import { join } from 'node:path';
import type { SearchStores } from '../../core/search/ports';
import { sqliteSearchStores } from '../../core/search/sqlite';
import type { SharedDeps } from '../shared/module';

// The PostgreSQL adapter (and the driver) load only when a pool is given.
const postgres = () => require('../../core/search/postgres') as typeof import('../../core/search/postgres');

/**
 * The search service's stores: PostgreSQL when DATABASE_URL is set (every replica's store; a
 * server listens for the others' writes, a command does not need to), else search.db in the data directory.
 */
export function searchStores({ config, postgres: pool, log }: SharedDeps, opts: { admin?: boolean }): SearchStores {
  if (!pool) return sqliteSearchStores(join(config.PLATFORM_DATA_DIR, 'search.db'), { durable: opts.admin });
  return postgres().pgSearchStores(pool, {
    listen: !opts.admin,
    onError: (err: Error) => log.warn({ err: err.message }, 'search: following the change feed failed; retrying'),
  });
}
