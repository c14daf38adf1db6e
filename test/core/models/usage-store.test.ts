import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sqliteUsageStore } from '../../../core/models/sqlite';
import { twoConnections } from './models-db';
import { usageStoreContract } from './store-contracts-usage';

const ROOT = join(__dirname, '..', '..', '..');

usageStoreContract('SQLite (models.db)', async () => twoConnections((db) => sqliteUsageStore(db)));

describe('usage in models.db, under processes writing at once', () => {
  it('keeps every record of four processes recording in group commits at the same time', async () => {
    const s = twoConnections((db) => sqliteUsageStore(db));
    // Each process records 300 calls in bursts (one transaction per 50 ms), then flushes what is left.
    const script = `
      const { openModelsDb, sqliteUsageStore } = require(${JSON.stringify(join(ROOT, 'dist', 'core', 'models', 'sqlite', 'index.js'))});
      const db = openModelsDb(process.argv[1]);
      const usage = sqliteUsageStore(db);
      const call = (i) => ({ at: 1000 + i, keyId: 'k', tenant: 't', model: 'm' + (i % 3), route: 'r', status: 200, latencyMs: 1, upstreamMs: null,
        tokensIn: 1, tokensOut: 2, wordsSent: 0, wordsReceived: 0, cache: 'MISS', guard: 'off', options: {} });
      // The group commit's timer does not hold a process open; a server's sockets do, this does here.
      const alive = setInterval(() => undefined, 1000);
      (async () => {
        for (let burst = 0; burst < 6; burst++) {
          await Promise.all(Array.from({ length: 50 }, (_, i) => usage.record(call(burst * 50 + i), 0.001)));
        }
        await usage.flush();
        db.close();
        clearInterval(alive);
      })();
    `;
    await Promise.all([1, 2, 3, 4].map(() => promisify(execFile)(process.execPath, ['-e', script, s.file])));
    const r = await s.one.totals('t', 0, 10_000);
    expect(r.totals).toMatchObject({ requests: 1200, tokens_in: 1200, tokens_out: 2400 });
    expect(r.totals.cost).toBeCloseTo(1.2, 9);
    expect(r.byModel.map((m) => [m.model, m.requests])).toEqual([
      ['m0', 400],
      ['m1', 400],
      ['m2', 400],
    ]);
    await s.close();
  }, 30_000);
});
