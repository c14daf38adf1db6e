import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Logger } from 'pino';
import { openDatabase } from '../core/shared/sqlite';
import { cacheTableSql, sqliteCache } from '../core/shared/sqlite-cache';

/** gateway.db: what the gateway's workers share. */
export const GATEWAY_MIGRATIONS = [cacheTableSql('persisted_queries')];

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
