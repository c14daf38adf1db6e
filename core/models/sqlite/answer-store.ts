import type { Clock } from '../../shared/clock';
import { sqliteCache, type SqliteCache } from '../../shared/sqlite-cache';
import type { Db } from '../../shared/sqlite';
import type { AnswerStore } from '../ports';

/**
 * Cached answers in models.db (table `answer_cache`), the embedded default: every worker of the
 * machine reads what another wrote. Bounded in entries and bytes; the expired go first, then the
 * oldest written (see core/shared/sqlite-cache.ts).
 */
export interface SqliteAnswerStoreOptions {
  clock: Clock;
  maxEntries: number;
  maxBytes: number;
}

export function sqliteAnswerStore(db: Db, opts: SqliteAnswerStoreOptions): AnswerStore & { sweep(): number; cache: SqliteCache } {
  const cache = sqliteCache(db, { table: 'answer_cache', maxEntries: opts.maxEntries, maxBytes: opts.maxBytes, now: opts.clock.now });
  return {
    get: async (key) => cache.get(key),
    set: async (key, value, ttlMs) => cache.set(key, value, ttlMs),
    sweep: () => cache.sweep(),
    cache,
  };
}
