import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MODELS_PG_MIGRATIONS, pgSpendCounters } from '../../../core/models/postgres';
import { redisSpendCounters } from '../../../core/models/redis/spend-counters';
import { sqliteSpendCounters } from '../../../core/models/sqlite';
import { describePg, sharedTestDatabase } from '../../shared/postgres';
import { twoConnections } from './models-db';
import { spendCountersContract } from './store-contracts-spend';

/** The money counters pass one contract on models.db (two workers), PostgreSQL (two replicas) and Redis. */
spendCountersContract('SQLite (models.db)', async () => twoConnections((db) => sqliteSpendCounters(db)));

describePg('money counters on PostgreSQL', () => {
  const open = sharedTestDatabase([{ scope: 'models', sql: MODELS_PG_MIGRATIONS }]);
  spendCountersContract('PostgreSQL', () => open((pool) => pgSpendCounters(pool)));
});

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  spendCountersContract('Redis', async () => {
    const prefix = `test:spend:${randomUUID()}:`;
    const [a, b] = [new Redis(process.env.REDIS_URL!), new Redis(process.env.REDIS_URL!)];
    return {
      one: redisSpendCounters(a, prefix),
      two: redisSpendCounters(b, prefix),
      now: () => Date.now(),
      advance: async () => undefined,
      close: async () => {
        const keys = await a.keys(`${prefix}*`);
        if (keys.length) await a.del(...keys);
        await Promise.all([a.quit(), b.quit()]);
      },
    };
  });
}
