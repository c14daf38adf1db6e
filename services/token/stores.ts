import { join } from 'node:path';
import type { TokenStores } from '../../core/token/ports';
import { sqliteTokenStores } from '../../core/token/sqlite';
import type { SharedDeps } from '../shared/module';

// Loaded only when configured: commands and SQLite deployments never load these adapters.
const postgres = () => require('../../core/token/postgres') as typeof import('../../core/token/postgres');
const redis = () => require('../../core/token/redis/failures') as typeof import('../../core/token/redis/failures');

/**
 * The token service's adapters: PostgreSQL when DATABASE_URL is set (the store every replica
 * shares), else token.db in the data directory; the per-address and per-realm failure counts in
 * Redis when REDIS_URL is set (exact across replicas, failing open: docs/redis.md), else in the store.
 */
export function tokenStores({ config, postgres: pool, redis: client, log }: SharedDeps, opts: { admin?: boolean }): TokenStores {
  const stores = pool
    ? postgres().pgTokenStores(pool)
    : sqliteTokenStores(join(config.PLATFORM_DATA_DIR, 'token.db'), { durable: opts.admin });
  if (!client) return stores;
  return {
    ...stores,
    throttles: redis().redisFailureCounter(client, {
      prefix: `${config.REDIS_KEY_PREFIX}token:failures:`,
      onOutage: (err) =>
        log.error(
          { err: err.message },
          'token: Redis does not answer; the per-address and per-realm failure limits are off until it does (lockouts still count)',
        ),
      onRecovery: () => log.info('token: Redis answers again; the per-address and per-realm failure limits are back'),
    }),
  };
}
