import { join } from 'node:path';
import type { CacheOp } from '../../core/models/answers/cache';
import { sqliteModelsStores } from '../../core/models/sqlite';
import type { ModelsStores } from '../../core/models/stores';
import type { SharedDeps } from '../shared/module';

// Loaded only when configured: commands and SQLite deployments never load these adapters.
const postgres = () => require('../../core/models/postgres') as typeof import('../../core/models/postgres');
const redisStores = () => require('../../core/models/redis') as typeof import('../../core/models/redis');

interface CacheSettings {
  MODELS_CACHE_TTL_SECONDS: number;
  MODELS_CACHE_MAX_MB: number;
}

/**
 * The model gateway's adapters: models.db in the data directory for every port; with DATABASE_URL
 * the keys, usage and stored responses in PostgreSQL; with REDIS_URL (a serving process: the CLI
 * serves no answers) the answers cached, a key's limits counted, and the deployments' cooldowns shared, in Redis.
 */
export function modelsStores(
  deps: SharedDeps<CacheSettings>,
  opts: { admin?: boolean; onError: (what: CacheOp, err: Error) => void },
): ModelsStores {
  const { config, clock, log, postgres: pool, redis } = deps;
  const local = sqliteModelsStores(join(config.PLATFORM_DATA_DIR, 'models.db'), {
    clock,
    durable: opts.admin,
    cacheTtlSeconds: config.MODELS_CACHE_TTL_SECONDS,
    cacheMaxBytes: config.MODELS_CACHE_MAX_MB * 2 ** 20,
    onCacheError: opts.onError,
  });
  return {
    ...local,
    ...(pool && postgres().pgModelsStores(pool)),
    ...(redis &&
      redisStores().redisModelsStores(redis, {
        prefix: `${config.REDIS_KEY_PREFIX}models:`,
        cache: {
          ttlMs: config.MODELS_CACHE_TTL_SECONDS * 1000,
          maxEntryBytes: 1024 * 1024,
          onError: (op, err) => log.warn({ op, err: err.message }, 'models: the Redis cache failed; answering without it'),
        },
        onHealthError: (op, err) =>
          log.warn({ op, err: err.message }, "models: Redis failed for the deployments' health; cooldowns stay this replica's own"),
      })),
  };
}
