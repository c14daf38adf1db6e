import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { redisFailureCounter } from '../../../core/token/redis/failures';
import { createFailureThrottle } from '../../../core/token/throttle';
import { failureCounterContract } from './store-contracts-failures';

/** A clock that moves only when told (test/shared/helpers.ts has one too, but loads the whole platform). */
const testClock = (start = Date.UTC(2026, 0, 1)) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  failureCounterContract('Redis', async () => {
    const prefix = `test:token:failures:${randomUUID()}:`;
    const [a, b] = [new Redis(process.env.REDIS_URL!), new Redis(process.env.REDIS_URL!)];
    const clock = testClock();
    return {
      // Generous timeouts: on a loaded machine a call over the default 500 ms would fail open (answer 0).
      one: redisFailureCounter(a, { prefix, timeoutMs: 10_000 }),
      two: redisFailureCounter(b, { prefix, timeoutMs: 10_000 }),
      now: clock.now,
      advance: async (ms: number) => clock.advance(ms),
      close: async () => {
        const keys = await a.keys(`${prefix}*`);
        if (keys.length) await a.del(...keys);
        await Promise.all([a.quit(), b.quit()]);
      },
    };
  });

  it('tells of an outage once and of the recovery once, counting again once Redis is back', async () => {
    const prefix = `test:token:failures:${randomUUID()}:`;
    const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect();
    const events: string[] = [];
    const counter = redisFailureCounter(redis, { prefix, onOutage: () => events.push('down'), onRecovery: () => events.push('up') });
    const now = Date.now();
    try {
      await counter.add('10.0.0.3', 60_000, now);
      const ended = once(redis, 'end');
      redis.disconnect();
      await ended;
      await counter.add('10.0.0.3', 60_000, now);
      expect(await counter.reserve('10.0.0.3', 1, 60_000, now)).toMatchObject({ reserved: true });
      expect(events).toEqual(['down']);
      await redis.connect();
      expect(await counter.count('10.0.0.3', now)).toEqual({ count: 1, resetAt: now + 60_000 });
      expect(await counter.reserve('10.0.0.3', 1, 60_000, now)).toMatchObject({ reserved: false });
      expect(events).toEqual(['down', 'up']);
    } finally {
      redis.disconnect();
      const cleaner = new Redis(process.env.REDIS_URL!);
      await cleaner.del(`${prefix}10.0.0.3`);
      await cleaner.quit();
    }
  });

  it("lets a window's key expire in Redis when the window ends", async () => {
    const prefix = `test:token:failures:${randomUUID()}:`;
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      await redisFailureCounter(redis, { prefix }).add('10.0.0.1', 60_000, Date.now());
      const ttl = await redis.pttl(`${prefix}10.0.0.1`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.del(`${prefix}10.0.0.1`);
      await redis.quit();
    }
  });
}

describe('the failure throttle when Redis does not answer', () => {
  /** A client whose every command waits forever: Redis hung, or a network that drops replies. */
  const hungClient = () => {
    const never = () => new Promise<never>(() => undefined);
    return { defineCommand: () => undefined, hmget: never, platformFailureCount: never, platformFailureRelease: never } as unknown as Redis;
  };

  it('fails open within its bounded wait, telling of the outage once, not per request', async () => {
    const outages: Error[] = [];
    const clock = testClock();
    const counter = redisFailureCounter(hungClient(), { timeoutMs: 100, onOutage: (err) => outages.push(err) });
    const throttle = createFailureThrottle({ counter, limit: 1, windowMs: 60_000, now: clock.now });
    // Twelve calls, each given up after its 100 ms (without the bound they would wait forever).
    for (let i = 0; i < 3; i++) {
      await throttle.check('10.0.0.1');
      await throttle.fail('10.0.0.1');
      const place = await throttle.reserve('10.0.0.1');
      await place.release();
    }
    expect(outages).toHaveLength(1);
    expect(outages[0].message).toMatch(/did not answer within 100 ms/);
  });
});
