import { MODELS_PG_MIGRATIONS, pgKeyStore, pgResponseStore, pgUsageStore } from '../../../core/models/postgres';
import { randomUUID } from 'node:crypto';
import { describePg, sharedTestDatabase } from '../../shared/postgres';
import { keyStoreContract } from './store-contracts-keys';
import { responseStoreContract } from './store-contracts-responses';
import { usageStoreContract } from './store-contracts-usage';

/** The model gateway's PostgreSQL adapters pass the same port contracts as the SQLite ones (DATABASE_URL). */
describePg('the model gateway on PostgreSQL', () => {
  const open = sharedTestDatabase([{ scope: 'models', sql: MODELS_PG_MIGRATIONS }]);
  keyStoreContract('PostgreSQL', () => open((pool) => pgKeyStore(pool)));
  usageStoreContract('PostgreSQL', () => open((pool) => pgUsageStore(pool)));
  responseStoreContract('PostgreSQL', () => open((pool) => pgResponseStore(pool)));

  it('keeps every record of four replicas recording in group commits at the same time', async () => {
    const [a, b] = [await open((pool) => pgUsageStore(pool)), await open((pool) => pgUsageStore(pool))];
    const tenant = `t-${randomUUID()}`;
    const call = (i: number) => ({
      at: 1000 + i,
      keyId: 'k',
      tenant,
      model: `m${i % 3}`,
      route: 'r',
      status: 200,
      latencyMs: 1,
      upstreamMs: null,
      tokensIn: 1,
      tokensOut: 2,
      wordsSent: 0,
      wordsReceived: 0,
      cache: 'MISS',
      guard: 'off',
      options: { i },
    });
    await Promise.all(
      [a.one, a.two, b.one, b.two].map(async (store) => {
        for (let burst = 0; burst < 6; burst++)
          await Promise.all(Array.from({ length: 50 }, (_, i) => store.record(call(burst * 50 + i), 0.001)));
      }),
    );
    const r = await a.one.totals(tenant, 0, 10_000);
    expect(r.totals).toMatchObject({ requests: 1200, tokens_in: 1200, tokens_out: 2400 });
    expect(r.totals.cost).toBeCloseTo(1.2, 9);
    expect(r.byModel.map((m) => [m.model, m.requests])).toEqual([
      ['m0', 400],
      ['m1', 400],
      ['m2', 400],
    ]);
    await Promise.all([a.close(), b.close()]);
  });
});
