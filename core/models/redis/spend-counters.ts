import type { Redis } from 'ioredis';
import type { SpendCounters } from '../ports';

/** Reserves on the server in one step: the hash's spent and reserved against the limit. */
const RESERVE = `
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local amount, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
if spent + reserved + amount > limit then return 0 end
redis.call('HINCRBY', KEYS[1], 'reserved', amount)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Settles in one step: the cost added, the reservation taken away (never below 0); the spend after. */
const SETTLE = `
local after = redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1])
local reserved = redis.call('HINCRBY', KEYS[1], 'reserved', 0 - tonumber(ARGV[2]))
if reserved < 0 then redis.call('HSET', KEYS[1], 'reserved', 0) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return after
`;

/** A period's counts outlive it (a month at most) by as much again. */
const KEPT_MS = 62 * 24 * 3600 * 1000;

type WithSpend = Redis & {
  platformSpendReserve(key: string, amount: number, limit: number, keptMs: number): Promise<number>;
  platformSpendSettle(key: string, cost: number, reserved: number, keptMs: number): Promise<number>;
};

/**
 * Spend and reservations in Redis (`REDIS_URL`), exact across every replica: each is a hash
 * (`spent`, `reserved`, integers of nano-dollars) changed only by Lua scripts, atomic on the
 * server. Keys live under `prefix` (`<REDIS_KEY_PREFIX>models:spend:`).
 */
export function redisSpendCounters(client: Redis, prefix = 'platform:models:spend:'): SpendCounters {
  const redis = client as WithSpend;
  if (!redis.platformSpendReserve) client.defineCommand('platformSpendReserve', { numberOfKeys: 1, lua: RESERVE });
  if (!redis.platformSpendSettle) client.defineCommand('platformSpendSettle', { numberOfKeys: 1, lua: SETTLE });
  const key = (scope: string, period: number) => `${prefix}${scope}:${period}`;
  return {
    reserve: async (scope, period, amount, limit) => (await redis.platformSpendReserve(key(scope, period), amount, limit, KEPT_MS)) === 1,
    async settle(scope, period, reserved, cost) {
      const after = Number(await redis.platformSpendSettle(key(scope, period), cost, reserved, KEPT_MS));
      return { before: after - cost, after };
    },
    async read(scope, period) {
      const [spent, reserved] = await client.hmget(key(scope, period), 'spent', 'reserved');
      return { spent: Number(spent ?? 0), reserved: Number(reserved ?? 0) };
    },
  };
}
