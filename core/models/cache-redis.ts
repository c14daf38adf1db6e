import { Redis } from 'ioredis';
import { z } from 'zod';
import type { CacheOutcome, ChatCache } from './cache';
import type { ChatStream, ChatUsage, FinishReason } from './chat';

/**
 * The response cache shared by every worker: the same rules as the in-memory `chatCache` (only an
 * answer read to its end that finished with stop or length is kept, tenants never share since the
 * tenant is part of the key), with Redis holding the entries and expiring them (`SET ... PX`).
 * Redis is an optimisation, never a dependency of a call: a failed or slow GET is a miss, a failed
 * SET is dropped, and both are only reported through `onError`.
 */
export type RedisCacheOp = 'get' | 'set' | 'connection';

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

const Stored = z.object({
  pieces: z.array(z.string()),
  finishReason: z.enum(['stop', 'length']),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
});
type Stored = z.infer<typeof Stored>;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

const replay = (e: Stored): ChatStream => ({
  pieces: (async function* pieces() {
    yield* e.pieces;
  })(),
  done: Promise.resolve({ finishReason: e.finishReason, usage: e.usage }),
});

/**
 * A cache over a client the caller owns (its `close` leaves the client open). The client should
 * carry a `commandTimeout` and `enableOfflineQueue: false`, as `openRedisChatCache` sets, or a
 * stalled Redis stalls every call.
 */
export function redisChatCache(opts: RedisCacheOptions & { client: Redis }): ChatCache {
  const { client, ttlMs, maxEntryBytes } = opts;
  const prefix = opts.prefix ?? 'platform:models:cache:';
  const report = (op: RedisCacheOp, e: unknown) => opts.onError?.(op, asError(e));

  const lookup = async (key: string): Promise<Stored | null | 'failed'> => {
    let raw: string | null;
    try {
      raw = await client.get(key);
    } catch (e) {
      report('get', e);
      return 'failed';
    }
    if (raw === null) return null;
    try {
      return Stored.parse(JSON.parse(raw));
    } catch {
      // Not ours (another version wrote it, or it was tampered with): answer from upstream and overwrite.
      report('get', new Error(`unreadable cache entry under ${key}`));
      return null;
    }
  };

  const store = (key: string, entry: Stored) => {
    const json = JSON.stringify(entry);
    if (Buffer.byteLength(json) > maxEntryBytes) return;
    client.set(key, json, 'PX', ttlMs).catch((e: unknown) => report('set', e));
  };

  return {
    async through(k: string, upstream: () => Promise<ChatStream>): Promise<{ stream: ChatStream; outcome: CacheOutcome }> {
      const key = prefix + k;
      const hit = await lookup(key);
      if (hit && hit !== 'failed') return { stream: replay(hit), outcome: 'HIT' };
      const s = await upstream();
      // A GET that just failed means Redis is down or stalled: this call leaves it alone.
      if (hit === 'failed') return { stream: s, outcome: 'MISS' };
      const recorded: string[] = [];
      let bytes = 0;
      const keep = (d: { finishReason: FinishReason; usage: ChatUsage }) => {
        if (bytes > maxEntryBytes) return;
        if (d.finishReason !== 'stop' && d.finishReason !== 'length') return;
        store(key, { pieces: recorded, finishReason: d.finishReason, usage: d.usage });
      };
      // Only an answer the caller read to its end (not one cut off by a disconnect) is kept; the SET
      // is not awaited so the caller's stream ends as soon as the upstream's does.
      const pieces = (async function* record() {
        for await (const p of s.pieces) {
          if (bytes <= maxEntryBytes) {
            bytes += Buffer.byteLength(p);
            // Past the bound it can no longer be kept: stop holding a long answer in memory.
            if (bytes > maxEntryBytes) recorded.length = 0;
            else recorded.push(p);
          }
          yield p;
        }
        keep(await s.done);
      })();
      return { stream: { pieces, done: s.done }, outcome: 'MISS' };
    },
  };
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
