import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { Logger } from 'pino';
import type { Redis } from '../core/shared/redis';
import { openDatabase } from '../core/shared/sqlite';
import { sqliteCache } from '../core/shared/sqlite-cache';
import { GATEWAY_MIGRATIONS } from './persisted-queries';

/** A kept answer: its JSON result and when it was kept (ms since the epoch, for the `Age` header). */
export interface CachedAnswer {
  result: Record<string, unknown>;
  storedAt: number;
}

/**
 * Where public answers are kept for their maxAge. A store that fails answers "miss" (the operation
 * runs) and a lost write is only logged: the cache never fails a request.
 */
export interface ResponseStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void>;
  close(): void;
}

const decode = (text: string | null | undefined): CachedAnswer | undefined => {
  if (!text) return undefined;
  const parsed = JSON.parse(text) as Partial<CachedAnswer>;
  return typeof parsed.storedAt === 'number' && parsed.result && typeof parsed.result === 'object'
    ? { result: parsed.result, storedAt: parsed.storedAt }
    : undefined;
};

/** Wraps a store's raw operations so that any failure is a miss (reads) or a log line (writes). */
function failSafe(
  log: Logger,
  where: string,
  raw: { get(key: string): Promise<string | null | undefined>; set(key: string, value: string, ttlSeconds: number): Promise<unknown> },
  close: () => void = () => {},
): ResponseStore {
  return {
    async get(key) {
      try {
        return decode(await raw.get(key));
      } catch (err) {
        log.warn({ err: (err as Error).message }, `gateway: reading the response cache (${where}) failed; the operation runs`);
        return undefined;
      }
    },
    async set(key, answer, ttlSeconds) {
      try {
        await raw.set(key, JSON.stringify(answer), ttlSeconds);
      } catch (err) {
        log.warn({ err: (err as Error).message }, `gateway: keeping an answer in the response cache (${where}) failed`);
      }
    },
    close,
  };
}

/** In this process's memory, least recently used out first past `maxBytes`. */
export function memoryResponses(opts: { maxBytes: number; log: Logger }): ResponseStore {
  const lru = new InMemoryLRUCache<string>({ maxSize: opts.maxBytes });
  return failSafe(opts.log, 'memory', { get: (k) => lru.get(k), set: (k, v, ttl) => lru.set(k, v, { ttl }) });
}

/** In gateway.db, shared by every worker of the machine: the expired, then the oldest out first past `maxBytes`. */
export function sqliteResponses(file: string, opts: { maxBytes: number; log: Logger; now?: () => number }): ResponseStore {
  const db = openDatabase(file, GATEWAY_MIGRATIONS);
  const cache = sqliteCache(db, { table: 'response_cache', maxEntries: 1_000_000, maxBytes: opts.maxBytes, now: opts.now ?? Date.now });
  return failSafe(opts.log, 'gateway.db', { get: async (k) => cache.get(k), set: async (k, v, ttl) => cache.set(k, v, ttl * 1000) }, () =>
    db.close(),
  );
}

/** In Redis (REDIS_URL), shared by every replica: under `prefix`, expiring after maxAge, bounded by Redis's `maxmemory`. */
export function redisResponses(client: Redis, opts: { prefix: string; log: Logger }): ResponseStore {
  return failSafe(opts.log, 'Redis', {
    get: (k) => client.get(opts.prefix + k),
    set: (k, v, ttl) => client.set(opts.prefix + k, v, 'EX', ttl),
  });
}

/** Where the response cache keeps answers: Redis when given (every replica), else the SQLite file (every worker), else memory. */
export interface ResponseCacheOptions {
  /** Bound of the SQLite or memory store, in bytes (GRAPHQL_RESPONSE_CACHE_MB). */
  maxBytes: number;
  file?: string;
  redis?: { client: Redis; prefix: string };
  /** The clock of `Age` and of gateway.db's expiry (Redis and memory expire on their own); Date.now by default. */
  now?: () => number;
}

export function responseStore(opts: ResponseCacheOptions, log: Logger): ResponseStore {
  if (opts.redis) return redisResponses(opts.redis.client, { prefix: opts.redis.prefix, log });
  if (opts.file) return sqliteResponses(opts.file, { maxBytes: opts.maxBytes, log, now: opts.now });
  return memoryResponses({ maxBytes: opts.maxBytes, log });
}
