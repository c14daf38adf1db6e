import { Redis } from 'ioredis';
import { answerCache, type CacheOp, type ChatCache } from '../cache';
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

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

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

/** The URL without credentials, fit for messages and logs. */
function where(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'the configured URL';
  }
}

/** Waits for the client to be ready (or to fail), then PINGs. */
async function reachable(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        client.off('ready', ok).off('error', settle).off('end', ended);
        if (err) reject(err);
        else resolve();
      };
      const ok = () => settle();
      const ended = () => settle(new Error('connection closed'));
      const timer = setTimeout(() => settle(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      client.on('ready', ok).on('error', settle).on('end', ended);
    });
  }
  await client.ping();
}

/** Opens a client for `url` (e.g. `REDIS_URL`) with settings that keep a down or stalled Redis out of the way. */
export function openRedisChatCache(url: string, opts: OpenRedisOptions): OpenedRedisChatCache {
  const commandTimeout = opts.commandTimeoutMs ?? 300;
  const connectTimeout = opts.connectTimeoutMs ?? 2000;
  const client = new Redis(url, {
    commandTimeout,
    connectTimeout,
    // While disconnected, commands fail at once instead of queueing behind the reconnects.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  // One report per outage, not one per reconnect attempt; also keeps ioredis from printing errors itself.
  let down = false;
  client.on('error', (e: Error) => {
    if (!down) opts.onError?.('connection', e);
    down = true;
  });
  client.on('ready', () => (down = false));
  const cache = redisChatCache({ ...opts, client });
  return {
    through: (key, upstream) => cache.through(key, upstream),
    ping: () =>
      reachable(client, connectTimeout + commandTimeout).catch((e: unknown) => {
        throw new Error(`Redis at ${where(url)} is unreachable: ${asError(e).message}`);
      }),
    async close() {
      // QUIT waits for the replies still due; a Redis that cannot answer it is simply dropped.
      await client.quit().catch(() => client.disconnect());
    },
  };
}
