import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Admission, LimitCounters } from '../ports';

/**
 * Takes a request in one step on the Redis server, whichever replica asks: the key's requests are a
 * sorted set scored by instant; those at or before `now - window` leave, then the request is
 * counted when fewer than `limit` remain, or the instant the (n - limit + 1)th oldest leaves is
 * returned. The set expires one window after its last request.
 */
const TAKE = `
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local leaving = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, tonumber(leaving[2]) + window}
`;

/** Token counts outlive their period (a month at most) by as much again after their last spending. */
const SPEND_KEPT_MS = 62 * 24 * 3600 * 1000;

type WithTake = Redis & {
  platformTakeRequest(key: string, now: number, windowMs: number, limit: number, member: string): Promise<[number, number]>;
};

/**
 * The keys' counts in Redis (`REDIS_URL`), exact across every replica on every host: requests in a
 * sliding window (a Lua script, atomic on the server) and tokens per period (INCRBY). Keys live
 * under `prefix` (default `platform:models:limits:`).
 */
export function redisLimitCounters(client: Redis, prefix = 'platform:models:limits:'): LimitCounters {
  const redis = client as WithTake;
  if (!redis.platformTakeRequest) client.defineCommand('platformTakeRequest', { numberOfKeys: 1, lua: TAKE });
  const rate = (id: string) => `${prefix}rate:${id}`;
  const tokens = (id: string, period: number) => `${prefix}tokens:${id}:${period}`;

  return {
    async takeRequest(id, limit, windowMs, now): Promise<Admission> {
      // Unique per request: two at the same instant are two members.
      const [admitted, retryAt] = await redis.platformTakeRequest(
        rate(id),
        now,
        windowMs,
        limit,
        `${now}:${randomBytes(6).toString('base64url')}`,
      );
      return admitted === 1 ? { admitted: true } : { admitted: false, retryAt };
    },
    tokensSpent: async (id, period) => Number((await client.get(tokens(id, period))) ?? 0),
    async spendTokens(id, period, n) {
      await client.multi().incrby(tokens(id, period), n).pexpire(tokens(id, period), SPEND_KEPT_MS).exec();
    },
    /** Sets expire by themselves; this forgets what an instant before `before` left behind, as the SQLite store does. */
    async pruneRequests(before) {
      let pruned = 0;
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}rate:*`, 'COUNT', 500);
        cursor = next;
        for (const key of keys) pruned += await client.zremrangebyscore(key, '-inf', before);
      } while (cursor !== '0');
      return pruned;
    },
  };
}
