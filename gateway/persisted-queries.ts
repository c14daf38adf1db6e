import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Logger } from 'pino';
import type { Redis } from '../core/shared/redis';
import { openDatabase } from '../core/shared/sqlite';
import { cacheTableSql, sqliteCache } from '../core/shared/sqlite-cache';

/** gateway.db: what the gateway's workers share (automatic persisted queries; answers of the response cache, gateway/response-cache.ts). */
export const GATEWAY_MIGRATIONS = [cacheTableSql('persisted_queries'), cacheTableSql('response_cache')];

/**
 * Automatic persisted queries in gateway.db, so a hash registered through one worker is known to
 * every worker of the machine: Apollo Server's cache interface over a bounded SQLite table (the
 * oldest registered go first past `maxBytes`; Apollo sets no expiry). A store that cannot be read
 * answers "not found", and the client sends the query again.
 */
export function sqlitePersistedQueries(file: string, opts: { maxBytes: number; log: Logger }): KeyValueCache<string> & { close(): void } {
  const db = openDatabase(file, GATEWAY_MIGRATIONS);
  const cache = sqliteCache(db, { table: 'persisted_queries', maxEntries: 1_000_000, maxBytes: opts.maxBytes, now: Date.now });
  return {
    async get(key) {
      try {
        return cache.get(key);
      } catch (err) {
        opts.log.warn({ err }, 'gateway: reading a persisted query failed');
        return undefined;
      }
    },
    set: async (key, value, o) => cache.set(key, value, o?.ttl ? o.ttl * 1000 : null),
    delete: async (key) => cache.delete(key),
    close: () => db.close(),
  };
}

/** How long a query registered in Redis is kept after its last registration (Apollo asks no expiry). */
export const REDIS_APQ_TTL_SECONDS = 7 * 86_400;

/**
 * Automatic persisted queries in Redis (REDIS_URL), so a hash registered through one replica is
 * known to every replica on any host: entries under a prefix, kept a week after their last
 * registration and bounded by Redis's own `maxmemory`. A Redis that fails or is slow answers "not
 * found" (the client sends the query again) and a lost registration is only logged.
 */
export function redisPersistedQueries(client: Redis, opts: { log: Logger; prefix?: string }): KeyValueCache<string> {
  const prefix = opts.prefix ?? 'platform:gateway:apq:';
  const failed = (what: string) => (err: unknown) => {
    opts.log.warn({ err: (err as Error).message }, `gateway: ${what} a persisted query in Redis failed`);
    return undefined;
  };
  return {
    get: (key) => client.get(prefix + key).then((v) => v ?? undefined, failed('reading')),
    set: (key, value) => client.set(prefix + key, value, 'EX', REDIS_APQ_TTL_SECONDS).then(() => undefined, failed('keeping')),
    delete: (key) =>
      client.del(prefix + key).then(
        (n) => n > 0,
        () => false,
      ),
  };
}
