import { systemClock, type Clock } from '../../shared/clock';
import { answerCache, type CacheOp } from '../answers/cache';
import type { ModelsStores } from '../stores';
import { sqliteAnswerStore } from './answer-store';
import { sqliteCatalogStore } from './catalog';
import { openModelsDb } from './db';
import { sqliteKeyStore } from './keys';
import { sqliteLimitCounters } from './limit-counters';
import { sqliteResponseStore } from './responses';
import { sqliteSpendCounters } from './spend-counters';
import { sqliteTenantBudgetStore } from './tenant-budgets';
import { sqliteUsageStore } from './usage';

export interface SqliteModelsStoresOptions {
  /** The cache's clock; the system's when absent. */
  clock?: Clock;
  /** Every commit waits for the disk (administration); see core/shared/sqlite.ts. */
  durable?: boolean;
  /** How long a cached answer is served (`is_cache` 1); default an hour. */
  cacheTtlSeconds?: number;
  /** Bounds of the cache in the file (default 10,000 answers, 64 MiB). */
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  /** Told when the cache fails (the call goes on without it). */
  onCacheError?: (op: CacheOp, err: Error) => void;
}

/** Every port of the model gateway in one models.db (or `:memory:`), shared by a machine's worker processes. */
export function sqliteModelsStores(file: string, opts: SqliteModelsStoresOptions = {}): ModelsStores {
  const db = openModelsDb(file, { durable: opts.durable });
  const cacheBytes = opts.cacheMaxBytes ?? 64 * 2 ** 20;
  const answers = sqliteAnswerStore(db, {
    clock: opts.clock ?? systemClock,
    maxEntries: opts.cacheMaxEntries ?? 10_000,
    maxBytes: cacheBytes,
  });
  const cache = answerCache(answers, {
    ttlMs: (opts.cacheTtlSeconds ?? 3600) * 1000,
    maxEntryBytes: Math.min(2 ** 20, Math.floor(cacheBytes / 10)),
    onError: (op, err) => opts.onCacheError?.(op, err),
  });
  return {
    keys: sqliteKeyStore(db),
    usage: sqliteUsageStore(db),
    limits: sqliteLimitCounters(db),
    spend: sqliteSpendCounters(db),
    budgets: sqliteTenantBudgetStore(db),
    responses: sqliteResponseStore(db),
    catalog: sqliteCatalogStore(db),
    cache: { ...cache, sweep: () => answers.sweep() },
    close: () => db.close(),
  };
}
