import type { Redis } from 'ioredis';
import type { FailureCounter, FailureWindow } from '../ports';

/**
 * One window per key: a hash {count, reset}. The window of `now` is the stored one while its reset
 * lies ahead, else a new one of `window` ms; the key expires when its window ends. Each script runs
 * whole on the server, so parallel calls from every replica count exactly. ARGV: now, window,
 * limit (-1 = none: `add`). Answers {counted, count, reset}.
 */
const COUNT = `
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local w = redis.call('HMGET', KEYS[1], 'count', 'reset')
local count, reset = tonumber(w[1]) or 0, tonumber(w[2])
if not reset or reset <= now then count, reset = 0, now + window end
if limit >= 0 and count >= limit then return {0, count, reset} end
redis.call('HSET', KEYS[1], 'count', count + 1, 'reset', string.format('%.0f', reset))
redis.call('PEXPIRE', KEYS[1], math.max(1, reset - now))
return {1, count + 1, reset}
`;

/** Gives one back, only in the window it was taken in (ARGV[1]: that window's reset). */
const RELEASE = `
local w = redis.call('HMGET', KEYS[1], 'count', 'reset')
if w[2] == ARGV[1] and (tonumber(w[1]) or 0) > 0 then return redis.call('HINCRBY', KEYS[1], 'count', -1) end
return -1
`;

type Scripted = Redis & {
  platformFailureCount(key: string, now: number, windowMs: number, limit: number): Promise<[number, number, number]>;
  platformFailureRelease(key: string, resetAt: string): Promise<number>;
};

export interface RedisFailureOptions {
  /** Default `platform:token:failures:`. */
  prefix?: string;
  /** How long one call waits for Redis before the throttle goes on without it. Default 500 ms. */
  timeoutMs?: number;
  /** Told once when Redis stops answering (then once more per later outage), never per request. */
  onOutage?(err: Error): void;
  /** Told when Redis answers again after an outage. */
  onRecovery?(): void;
}

class RedisTimeout extends Error {}

/**
 * The failed-authentication counts in Redis (`REDIS_URL`), exact across every replica on every
 * host: fixed windows per key (a caller address, a realm), reserve and release each one Lua
 * script, keys under `prefix` that expire with their window (`prune` has nothing to do).
 *
 * Redis unreachable or slow: the throttle fails open (docs/redis.md). Each call waits at most
 * `timeoutMs`, then answers as if the key had no failures (a reservation is granted, a failure,
 * release or forget is dropped); the outage is reported once, not per request. Passwords stay
 * protected meanwhile by the lockouts, which are counted in the database, and by the hashing pool.
 */
export function redisFailureCounter(client: Redis, opts: RedisFailureOptions = {}): FailureCounter {
  const redis = client as Scripted;
  if (!redis.platformFailureCount) {
    client.defineCommand('platformFailureCount', { numberOfKeys: 1, lua: COUNT });
    client.defineCommand('platformFailureRelease', { numberOfKeys: 1, lua: RELEASE });
  }
  const prefix = opts.prefix ?? 'platform:token:failures:';
  const timeoutMs = opts.timeoutMs ?? 500;
  const key = (k: string) => prefix + k;
  let down = false;

  /** A Redis call bounded in time; when it fails, `open` is the answer (and the outage is told once). */
  async function bounded<T>(call: () => Promise<T>, open: () => T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        call(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new RedisTimeout(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
          timer.unref();
        }),
      ]);
      if (down) {
        down = false;
        opts.onRecovery?.();
      }
      return answer;
    } catch (err) {
      if (!down) {
        down = true;
        opts.onOutage?.(err instanceof Error ? err : new Error(String(err)));
      }
      return open();
    } finally {
      clearTimeout(timer);
    }
  }

  const window = ([, count, reset]: [number, number, number]): FailureWindow => ({ count: Number(count), resetAt: Number(reset) });
  return {
    count: (k, now) =>
      bounded(
        async () => {
          const [count, reset] = await client.hmget(key(k), 'count', 'reset');
          return reset !== null && Number(reset) > now ? { count: Number(count ?? 0), resetAt: Number(reset) } : { count: 0, resetAt: now };
        },
        () => ({ count: 0, resetAt: now }),
      ),
    add: (k, windowMs, now) =>
      bounded(
        async () => window(await redis.platformFailureCount(key(k), now, windowMs, -1)).count,
        () => 0,
      ),
    reserve: (k, limit, windowMs, now) =>
      bounded(
        async () => {
          const answer = await redis.platformFailureCount(key(k), now, windowMs, limit);
          return { ...window(answer), reserved: Number(answer[0]) === 1 };
        },
        () => ({ count: 0, resetAt: now + windowMs, reserved: true }),
      ),
    release: (k, resetAt) =>
      bounded(
        async () => {
          await redis.platformFailureRelease(key(k), String(resetAt));
        },
        () => undefined,
      ),
    forget: (k) =>
      bounded(
        async () => {
          await client.del(key(k));
        },
        () => undefined,
      ),
    prune: async () => 0,
  };
}
