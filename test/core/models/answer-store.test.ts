import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { redisAnswerStore } from '../../../core/models/redis/answer-store';
import { openModelsDb, sqliteAnswerStore } from '../../../core/models/sqlite';
import { testClock } from '../../shared/helpers';
import { answerStoreContract } from './store-contracts';

const ROOT = join(__dirname, '..', '..', '..');
const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'answer-store-'));
  dirs.push(dir);
  return join(dir, 'models.db');
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Two connections to one models.db (two workers), on one test clock. */
function openSqlite(bounds = { maxEntries: 100, maxBytes: 1 << 20 }) {
  const file = tempFile();
  const clock = testClock();
  const [a, b] = [openModelsDb(file), openModelsDb(file)];
  return {
    file,
    clock,
    a,
    b,
    one: sqliteAnswerStore(a, { clock, ...bounds }),
    two: sqliteAnswerStore(b, { clock, ...bounds }),
    now: clock.now,
    advance: async (ms: number) => clock.advance(ms),
    close: async () => {
      a.close();
      b.close();
    },
  };
}

answerStoreContract('SQLite (models.db)', async () => openSqlite());

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  answerStoreContract(
    'Redis',
    async () => {
      const prefix = `test:answer-store:${randomUUID()}:`;
      const [a, b] = [new Redis(process.env.REDIS_URL!), new Redis(process.env.REDIS_URL!)];
      return {
        one: redisAnswerStore(a, prefix),
        two: redisAnswerStore(b, prefix),
        now: Date.now,
        // Redis keeps its own clock: time passing is played by shortening every key's time to live
        // (what a real wait would do, without racing it on a loaded machine); a key whose time is up goes.
        advance: async (ms: number) => {
          for (const key of await a.keys(`${prefix}*`)) {
            const left = await a.pttl(key);
            if (left < 0) continue; // no expiry: time passing changes nothing
            if (left <= ms) await a.del(key);
            else await a.pexpire(key, left - ms);
          }
        },
        close: async () => {
          const keys = await a.keys(`${prefix}*`);
          if (keys.length) await a.del(...keys);
          await Promise.all([a.quit(), b.quit()]);
        },
      };
    },
    20_000,
  );
}

describe('the answer store in models.db', () => {
  it('stays within its entries: the expired go first, then the oldest written', async () => {
    const s = openSqlite({ maxEntries: 3, maxBytes: 1 << 20 });
    await s.one.set('old', 'a', 60_000);
    await s.two.set('expiring', 'b', 1000);
    await s.one.set('mid', 'c', 60_000);
    s.clock.advance(2000);
    await s.two.set('new', 'd', 60_000);
    // The expired one made room: the oldest stays.
    expect(await Promise.all(['old', 'mid', 'new'].map((k) => s.one.get(k)))).toEqual(['a', 'c', 'd']);
    await s.one.set('newer', 'e', 60_000);
    expect(await s.two.get('old')).toBeUndefined();
    expect(await Promise.all(['mid', 'new', 'newer'].map((k) => s.two.get(k)))).toEqual(['c', 'd', 'e']);
    expect(s.one.cache.totals()).toEqual({ entries: 3, bytes: 'midnewnewer'.length + 3 });
    await s.close();
  });

  it('stays within its bytes, keeps nothing larger than them, and a rewrite counts once', async () => {
    const s = openSqlite({ maxEntries: 100, maxBytes: 100 });
    await s.one.set('k1', 'x'.repeat(40), 60_000);
    await s.one.set('k1', 'y'.repeat(40), 60_000);
    await s.two.set('k2', 'z'.repeat(40), 60_000);
    expect(s.one.cache.totals()).toEqual({ entries: 2, bytes: 84 });
    await s.two.set('k3', 'w'.repeat(40), 60_000);
    expect(await s.one.get('k1')).toBeUndefined();
    expect(s.one.cache.totals()).toEqual({ entries: 2, bytes: 84 });
    await s.one.set('huge', 'h'.repeat(200), 60_000);
    expect(await s.one.get('huge')).toBeUndefined();
    expect(await s.one.get('k3')).toBe('w'.repeat(40));
    await s.close();
  });

  it('sweeps the expired entries', async () => {
    const s = openSqlite();
    await s.one.set('a', '1', 1000);
    await s.one.set('b', '2', 5000);
    s.clock.advance(1000);
    expect(s.two.sweep()).toBe(1);
    expect(s.two.cache.totals().entries).toBe(1);
    await s.close();
  });

  it('holds its bounds when several processes write at once', async () => {
    const file = tempFile();
    openModelsDb(file).close();
    const script = `
      const { openModelsDb } = require(${JSON.stringify(join(ROOT, 'dist', 'core', 'models', 'sqlite', 'index.js'))});
      const { sqliteCache } = require(${JSON.stringify(join(ROOT, 'dist', 'core', 'shared', 'sqlite-cache.js'))});
      const c = sqliteCache(openModelsDb(process.argv[1]), { table: 'answer_cache', maxEntries: 50, maxBytes: 4000, now: Date.now });
      for (let i = 0; i < 200; i++) c.set(process.argv[2] + i, 'v'.repeat(i % 60), 60000);
    `;
    await Promise.all(['a', 'b', 'c', 'd'].map((p) => promisify(execFile)(process.execPath, ['-e', script, file, p])));
    const db = openModelsDb(file);
    const real = db.prepare('SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes FROM answer_cache').get();
    const kept = sqliteAnswerStore(db, { clock: testClock(), maxEntries: 50, maxBytes: 4000 }).cache.totals();
    expect(kept).toEqual(real);
    expect(kept.entries).toBeLessThanOrEqual(50);
    expect(kept.entries).toBeGreaterThan(0);
    expect(kept.bytes).toBeLessThanOrEqual(4000);
    db.close();
  }, 30_000);
});
