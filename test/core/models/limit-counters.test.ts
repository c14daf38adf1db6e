import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { openModelsDb, sqliteLimitCounters } from '../../../core/models/sqlite';
import { redisLimitCounters } from '../../../core/models/redis/limit-counters';
import { testClock } from '../../shared/helpers';
import { limitCountersContract } from './store-contracts';

const ROOT = join(__dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'limit-counters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

limitCountersContract('SQLite (models.db)', async () => {
  const file = join(dir, `models-${n++}.db`);
  const clock = testClock();
  const [a, b] = [openModelsDb(file), openModelsDb(file)];
  return {
    one: sqliteLimitCounters(a),
    two: sqliteLimitCounters(b),
    now: clock.now,
    advance: async (ms: number) => clock.advance(ms),
    close: async () => {
      a.close();
      b.close();
    },
  };
});

describe('limit counts in models.db, under processes running at once', () => {
  it('admits exactly the limit when four processes take requests at the same instant', async () => {
    const file = join(dir, 'parallel.db');
    openModelsDb(file).close();
    // Each process waits for the same start instant, then takes requests of 2,000 keys limited to 1 in
    // the same order (each key's boundary is a race; separate count and insert statements admit ~1% twice), then 25 more of one key limited to 10.
    const script = `
      const { openModelsDb, sqliteLimitCounters } = require(${JSON.stringify(join(ROOT, 'dist', 'core', 'models', 'sqlite', 'index.js'))});
      const c = sqliteLimitCounters(openModelsDb(process.argv[1]));
      const start = Number(process.argv[2]);
      while (Date.now() < start);
      let admitted = 0;
      for (let k = 0; k < 2000; k++) if (c.take('k' + k, 1, 60000, Date.now()).admitted) admitted++;
      for (let i = 0; i < 25; i++) if (c.take('key', 10, 60000, Date.now()).admitted) admitted++;
      process.stdout.write(String(admitted));
    `;
    const start = String(Date.now() + 1500);
    const outs = await Promise.all([1, 2, 3, 4].map(() => promisify(execFile)(process.execPath, ['-e', script, file, start])));
    expect(outs.map((o) => Number(o.stdout)).reduce((a, b) => a + b, 0)).toBe(2000 + 10);
    const db = openModelsDb(file);
    expect(db.prepare("SELECT count(*) FROM rate_requests WHERE key_id = 'key'").pluck().get()).toBe(10);
    expect(
      db.prepare("SELECT max(n) FROM (SELECT count(*) AS n FROM rate_requests WHERE key_id != 'key' GROUP BY key_id)").pluck().get(),
    ).toBe(1);
    db.close();
  }, 30_000);

  it('adds every token spent by processes writing at once', async () => {
    const file = join(dir, 'spend.db');
    openModelsDb(file).close();
    const script = `
      const { openModelsDb, sqliteLimitCounters } = require(${JSON.stringify(join(ROOT, 'dist', 'core', 'models', 'sqlite', 'index.js'))});
      const c = sqliteLimitCounters(openModelsDb(process.argv[1]));
      Promise.all(Array.from({ length: 100 }, () => c.spendTokens('key', 0, 3)));
    `;
    await Promise.all([1, 2, 3, 4].map(() => promisify(execFile)(process.execPath, ['-e', script, file])));
    const db = openModelsDb(file);
    expect(await sqliteLimitCounters(db).tokensSpent('key', 0)).toBe(1200);
    db.close();
  }, 30_000);
});

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  limitCountersContract('Redis', async () => {
    const prefix = `test:limits:${randomUUID()}:`;
    const [a, b] = [new Redis(process.env.REDIS_URL!), new Redis(process.env.REDIS_URL!)];
    const clock = testClock();
    return {
      one: redisLimitCounters(a, prefix),
      two: redisLimitCounters(b, prefix),
      now: clock.now,
      advance: async (ms: number) => clock.advance(ms),
      close: async () => {
        const keys = await a.keys(`${prefix}*`);
        if (keys.length) await a.del(...keys);
        await Promise.all([a.quit(), b.quit()]);
      },
    };
  });
}
