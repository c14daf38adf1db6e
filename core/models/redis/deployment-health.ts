import type { Redis } from 'ioredis';
import type { DeploymentHealth, DeploymentRef } from '../routing/health';
import { memoryDeploymentHealth, type CooldownListener } from '../routing/memory-health';

/**
 * Counts a failure for every replica in one step on the Redis server: nothing while the deployment
 * cools down; otherwise the failure joins a sorted set scored by instant, those older than the
 * window leave, and when `failures` remain the cooldown is written with its end (PX: it goes by
 * itself) and published, and the count starts afresh. Returns the cooldown's end, or 0.
 */
const COUNT = `
local now, window, limit, coolMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local current = redis.call('GET', KEYS[2])
if current and tonumber(current) > now then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], window)
if redis.call('ZCARD', KEYS[1]) < limit then return 0 end
redis.call('DEL', KEYS[1])
local ends = now + coolMs
redis.call('SET', KEYS[2], ends, 'PX', coolMs)
redis.call('PUBLISH', ARGV[6], cjson.encode({m = ARGV[7], d = ARGV[8], u = ends}))
return ends
`;

/** Writes a cooldown one replica decided (unless a later one is written) and publishes it. */
const COOL = `
local ends, ms = tonumber(ARGV[1]), tonumber(ARGV[2])
local current = redis.call('GET', KEYS[2])
if current and tonumber(current) >= ends then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ends, 'PX', ms)
redis.call('PUBLISH', ARGV[3], cjson.encode({m = ARGV[4], d = ARGV[5], u = ends}))
return 1
`;

type WithScripts = Redis & {
  platformHealthCount(failures: string, cooling: string, ...args: (string | number)[]): Promise<number>;
  platformHealthCool(failures: string, cooling: string, ...args: (string | number)[]): Promise<number>;
};

export type RedisHealthOp = 'count' | 'share' | 'load' | 'subscribe';

export interface RedisDeploymentHealthOptions {
  client: Redis;
  /** Keys and the channel live under it (`platform:models:health:`). */
  prefix: string;
  /** A cooldown this replica started or lengthened (the metrics count those `started`). */
  onCooldown?: CooldownListener;
  /** Told once per outage when Redis fails; the health keeps working on this replica's own view meanwhile. */
  onError?: (op: RedisHealthOp, err: Error) => void;
}

export interface RedisDeploymentHealth extends DeploymentHealth {
  /** Resolves once the cooldowns running at start are read and the channel is listened to (or failed: fail open). */
  readonly ready: Promise<void>;
  /** Resolves once every write sent so far is answered (tests, and `close`). */
  settle(): Promise<void>;
}

/**
 * Deployment health shared by every replica through Redis (`REDIS_URL`): failures are counted on
 * the server (COUNT, atomic), a cooldown is written with its end and published at once on a
 * channel every replica listens to (a second connection), and the cooldowns already running are
 * read at start. The router's reads stay in memory (memory-health.ts), which also counts this
 * replica's failures by itself: it decides at once what it saw N times, and keeps deciding while
 * Redis is down (fail open). Calls in flight and latencies are this replica's own.
 */
export function redisDeploymentHealth(opts: RedisDeploymentHealthOptions): RedisDeploymentHealth {
  const { client, prefix } = opts;
  const redis = client as WithScripts;
  if (!redis.platformHealthCount) client.defineCommand('platformHealthCount', { numberOfKeys: 2, lua: COUNT });
  if (!redis.platformHealthCool) client.defineCommand('platformHealthCool', { numberOfKeys: 2, lua: COOL });
  const channel = `${prefix}cooldowns`;
  const failuresKey = (d: DeploymentRef) => `${prefix}failures:${encodeURIComponent(d.model)}:${d.deployment}`;
  const coolingKey = (d: DeploymentRef) => `${prefix}cooling:${encodeURIComponent(d.model)}:${d.deployment}`;

  const pending = new Set<Promise<unknown>>();
  let failing = false;
  const track = (op: RedisHealthOp, p: Promise<unknown>): Promise<void> => {
    const tracked = p.then(
      () => void (failing = false),
      (err: unknown) => {
        if (!failing) opts.onError?.(op, err instanceof Error ? err : new Error(String(err)));
        failing = true;
      },
    );
    pending.add(tracked);
    void tracked.finally(() => pending.delete(tracked));
    return tracked;
  };
  const call = <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return run();
    } catch (err) {
      return Promise.reject(err);
    }
  };

  /** The instant of the failure being handled (the local health reports its cooldowns within `failed`). */
  let failedAt = 0;
  const local = memoryDeploymentHealth({
    onCooldown: (d, until, started) => {
      opts.onCooldown?.(d, until, started);
      const ms = Math.max(1, until - failedAt);
      void track(
        'share',
        call(() => redis.platformHealthCool(failuresKey(d), coolingKey(d), until, ms, channel, d.model, d.deployment)),
      );
    },
  });

  /** A message or a key from another replica: `{m, d, u}`; anything else is ignored. */
  const adoptMessage = (text: string) => {
    try {
      const { m, d, u } = JSON.parse(text) as { m?: unknown; d?: unknown; u?: unknown };
      if (typeof m === 'string' && typeof d === 'string' && typeof u === 'number') local.adopt({ model: m, deployment: d }, u);
    } catch {
      // Not ours.
    }
  };

  const load = async () => {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}cooling:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      const ends = await client.mget(...keys);
      keys.forEach((key, i) => {
        const rest = key.slice(`${prefix}cooling:`.length);
        const at = rest.lastIndexOf(':');
        const until = Number(ends[i]);
        if (at > 0 && Number.isFinite(until)) {
          local.adopt({ model: decodeURIComponent(rest.slice(0, at)), deployment: rest.slice(at + 1) }, until);
        }
      });
    } while (cursor !== '0');
  };

  // The channel is listened to on a connection of its own; on each (re)connection the cooldowns
  // written meanwhile are read back from their keys, so a missed message is not a missed cooldown.
  const subscriber = client.duplicate();
  let subscribed = false;
  let loaded: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (loaded = resolve));
  subscriber.on('error', (err: Error) => {
    if (loaded) opts.onError?.('subscribe', err);
    loaded?.(); // Redis down at start: this replica starts on its own view.
    loaded = undefined;
  });
  subscriber.on('message', (from: string, text: string) => {
    if (from === channel) adoptMessage(text);
  });
  subscriber.on('ready', () => {
    const connect = async () => {
      if (!subscribed) await subscriber.subscribe(channel);
      subscribed = true;
      await load();
    };
    void track('load', connect()).then(() => {
      loaded?.();
      loaded = undefined;
    });
  });

  const settle = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };

  return {
    ...local,
    ready,
    settle,
    failed(d, policy, now, what, until) {
      const before = local.cooling(d.model, now).get(d.deployment);
      failedAt = now;
      local.failed(d, policy, now, what, until);
      if (before !== undefined || local.cooling(d.model, now).has(d.deployment)) return;
      void track(
        'count',
        call(() =>
          redis.platformHealthCount(
            failuresKey(d),
            coolingKey(d),
            now,
            policy.windowSeconds * 1000,
            policy.failures,
            policy.seconds * 1000,
            `${now}:${Math.random().toString(36).slice(2, 10)}`,
            channel,
            d.model,
            d.deployment,
          ),
        ).then((ends) => {
          if (ends > 0) {
            local.adopt(d, ends);
            opts.onCooldown?.(d, ends, true);
          }
        }),
      );
    },
    async close() {
      await ready;
      await settle();
      subscriber.disconnect();
      await local.close();
    },
  };
}
