import type { Redis } from 'ioredis';
import { openRedis } from '../../shared/redis';
import { answerCache, type CacheOp, type ChatCache } from '../answers/cache';
import type { AnswerStore } from '../ports';

/**
 * The answer store in Redis (`REDIS_URL`), for processes on several machines: entries under a
 * prefix, expired by Redis itself (`SET ... PX`), bounded by Redis's own `maxmemory` policy. The
 * cache's rules (cache.ts) are the same as over models.db; a failed or slow GET is a miss, a failed
 * SET is dropped, and both are only reported through `onError`.
 */
export type RedisCacheOp = CacheOp;

export interface RedisCacheOptions {
  ttlMs: number;
  /** Answers whose stored JSON would be larger are not kept. */
  maxEntryBytes: number;
  /** Default `platform:models:cache:`. */
  prefix?: string;
  /** Told about every Redis failure the cache swallowed. */
  onError?: (op: RedisCacheOp, err: Error) => void;
}

export interface OpenRedisOptions extends RedisCacheOptions {
  /** How long one Redis command may take before the call goes on without it. Default 300 ms. */
  commandTimeoutMs?: number;
  /** Default 2000 ms. */
  connectTimeoutMs?: number;
}

/** A cache whose client it opened itself: `ping` lets start-up fail fast when Redis is unreachable. */
export type OpenedRedisChatCache = ChatCache & { ping(): Promise<void>; close(): Promise<void> };

/** The store over a client the caller owns. */
export function redisAnswerStore(client: Redis, prefix = 'platform:models:cache:'): AnswerStore {
  return {
    get: async (key) => (await client.get(prefix + key)) ?? undefined,
    set: async (key, value, ttlMs) => void (await client.set(prefix + key, value, 'PX', ttlMs)),
  };
}

/**
 * A cache over a client the caller owns (its `close` leaves the client open). The client should
 * carry a `commandTimeout` and `enableOfflineQueue: false`, as `openRedisChatCache` sets, or a
 * stalled Redis stalls every call.
 */
export function redisChatCache(opts: RedisCacheOptions & { client: Redis }): ChatCache {
  return answerCache(redisAnswerStore(opts.client, opts.prefix), opts);
}

/** Opens a client for `url` (e.g. `REDIS_URL`) with settings that keep a down or stalled Redis out of the way. */
export function openRedisChatCache(url: string, opts: OpenRedisOptions): OpenedRedisChatCache {
  const redis = openRedis(url, {
    commandTimeoutMs: opts.commandTimeoutMs,
    connectTimeoutMs: opts.connectTimeoutMs,
    onError: (e) => opts.onError?.('connection', e),
  });
  const cache = redisChatCache({ ...opts, client: redis.client });
  return {
    through: (key, upstream) => cache.through(key, upstream),
    read: (key) => cache.read(key),
    record: (key, stream, kept) => cache.record(key, stream, kept),
    ping: redis.ping,
    close: redis.close,
  };
}
