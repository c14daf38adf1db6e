import { openModelsDb, sqliteSpendCounters, sqliteTenantBudgetStore } from '../../../core/models/sqlite';
import { periodEnd, periodStart } from '../../../core/models/spend/budget';
import { moneyBudgets, type BudgetCrossing } from '../../../core/models/spend/budgets';
import { chatBound } from '../../../core/models/spend/bounds';
import { costOf } from '../../../core/models/spend/cost';
import { CatalogModel } from '../../../core/models/catalog/catalog';
import type { ApiKey } from '../../../core/models/keys/api-key';
import { RateLimited } from '../../../core/shared/errors';
import { testClock } from '../../shared/helpers';

const price = { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5, perImage: 0.04, audioPerMinute: 0.006 };

describe('the cost of a call', () => {
  it('adds uncached input, cached input, output, images and audio seconds at their prices', () => {
    expect(costOf(price, { tokensIn: 1_000_000, tokensOut: 0 })).toBeCloseTo(2, 12);
    expect(costOf(price, { tokensIn: 1_000_000, cachedTokens: 400_000, tokensOut: 0 })).toBeCloseTo(1.2 + 0.2, 12);
    expect(costOf(price, { tokensIn: 0, tokensOut: 500_000 })).toBeCloseTo(4, 12);
    expect(costOf(price, { tokensIn: 0, tokensOut: 0, images: 3 })).toBeCloseTo(0.12, 12);
    // Per minute, billed by the second (a started second counts).
    expect(costOf(price, { tokensIn: 0, tokensOut: 0, audioSeconds: 90 })).toBeCloseTo(0.009, 12);
    expect(costOf(price, { tokensIn: 0, tokensOut: 0, audioSeconds: 0.2 })).toBeCloseTo(0.0001, 12);
    expect(costOf(price, { tokensIn: 100, cachedTokens: 50, tokensOut: 10, images: 1, audioSeconds: 60 })).toBeCloseTo(
      (50 * 2 + 50 * 0.5 + 10 * 8) / 1e6 + 0.04 + 0.006,
      12,
    );
  });

  it('bills cached tokens at the input price when the model has no cached price, and never more cached than the prompt', () => {
    const plain = { inputPerMillion: 2, outputPerMillion: 8 };
    expect(costOf(plain, { tokensIn: 100, cachedTokens: 60, tokensOut: 0 })).toBeCloseTo(200 / 1e6, 15);
    expect(costOf(price, { tokensIn: 100, cachedTokens: 500, tokensOut: 0 })).toBeCloseTo(50 / 1e6, 15);
    expect(costOf(plain, { tokensIn: 0, tokensOut: 0, images: 2, audioSeconds: 30 })).toBe(0);
  });

  it('reads the new prices from a catalog entry, each optional', () => {
    const m = CatalogModel.parse({ id: 'm', group: 'A', upstream: { provider: 'local' }, contextLength: 100, price });
    expect(m.price).toEqual(price);
    expect(
      CatalogModel.safeParse({
        id: 'm',
        group: 'A',
        upstream: { provider: 'local' },
        contextLength: 100,
        price: { ...price, perImage: -1 },
      }).success,
    ).toBe(false);
  });

  it('bounds a chat call by its prompt bytes (at most the context) and its most output', () => {
    const m = CatalogModel.parse({ id: 'm', group: 'A', upstream: { provider: 'local' }, contextLength: 1000, maxOutputTokens: 50 });
    const b = chatBound(m, { messages: [{ role: 'user', text: 'héllo' }] });
    expect(b.tokensIn).toBe(6 + 16);
    expect(b.tokensOut).toBe(50);
    expect(chatBound(m, { messages: [{ role: 'user', text: 'x'.repeat(5000) }], maxTokens: 7 })).toEqual({ tokensIn: 1000, tokensOut: 7 });
  });
});

describe('money budgets', () => {
  const setup = () => {
    const db = openModelsDb(':memory:');
    const clock = testClock(Date.UTC(2026, 4, 31, 23, 0));
    const counters = sqliteSpendCounters(db);
    const tenants = sqliteTenantBudgetStore(db);
    const warnings: BudgetCrossing[] = [];
    const budgets = moneyBudgets({ clock, counters, tenants, onWarning: (w) => warnings.push(w) });
    const key: ApiKey = {
      id: 'k1',
      prefix: 'lmk-x',
      name: 'k',
      tenant: 'acme',
      models: null,
      requestsPerMinute: null,
      tokenBudget: null,
      budget: { usd: 1, period: 'monthly', warnAt: 0.5 },
      createdAt: new Date(0),
      revokedAt: null,
      expiresAt: null,
    };
    return { db, clock, counters, tenants, warnings, budgets, key };
  };
  const settled = () => new Promise((r) => setImmediate(r));

  it('knows its periods: the UTC day or month, ending where the next starts', () => {
    const t = Date.UTC(2026, 1, 28, 13, 5);
    expect(periodStart('daily', t)).toBe(Date.UTC(2026, 1, 28));
    expect(periodEnd('daily', t)).toBe(Date.UTC(2026, 2, 1));
    expect(periodStart('monthly', t)).toBe(Date.UTC(2026, 1, 1));
    expect(periodEnd('monthly', t)).toBe(Date.UTC(2026, 2, 1));
  });

  it('reserves the most a call may cost, refuses one that would pass the budget with 429 insufficient_quota until the period ends', async () => {
    const { budgets, key, counters } = setup();
    const a = await budgets.reserve(key, 0.6);
    expect(await counters.read('key:k1', Date.UTC(2026, 4, 1))).toEqual({ spent: 0, reserved: 600_000_000 });
    const refused = await budgets.reserve(key, 0.5).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    expect(refused).toMatchObject({ code: 'insufficient_quota', retryAfterSeconds: 3600 });
    expect((refused as Error).message).toMatch(/budget_exceeded/);
    // The real cost replaces the reservation: room again for the rest.
    budgets.settle(a, 0.2);
    await settled();
    expect(await budgets.spent('key', 'k1', key.budget!)).toMatchObject({ spent: 0.2, reserved: 0 });
    await expect(budgets.reserve(key, 0.8)).resolves.toBeDefined();
    await expect(budgets.reserve(key, 0.01)).rejects.toThrow(/budget_exceeded/);
  });

  it('holds the tenant budget too, giving back the key reservation when the tenant has no room', async () => {
    const { budgets, key, tenants, counters } = setup();
    await tenants.put({ tenant: 'acme', usd: 0.3, period: 'daily', warnAt: 0.8, updatedAt: new Date(0), updatedBy: 'admin' });
    const h = await budgets.reserve(key, 0.25);
    expect(h!.held.map((x) => x.scope)).toEqual(['key:k1', 'tenant:acme']);
    await expect(budgets.reserve(key, 0.1)).rejects.toMatchObject({ code: 'insufficient_quota', retryAfterSeconds: 3600 });
    await settled();
    expect(await counters.read('key:k1', Date.UTC(2026, 4, 1))).toEqual({ spent: 0, reserved: 250_000_000 });
    // A key without a budget is held by its tenant's alone.
    await expect(budgets.reserve({ ...key, id: 'k2', budget: null }, 0.1)).rejects.toThrow(/tenant/);
  });

  it('releases a failed call (a cost of 0) and warns once when a settle first crosses the warning fraction', async () => {
    const { budgets, key, warnings } = setup();
    const holds = await Promise.all([0, 1, 2, 3].map(() => budgets.reserve(key, 0.2)));
    budgets.settle(holds[0], 0);
    budgets.settle(holds[1], 0.3);
    await settled();
    expect(warnings).toEqual([]);
    budgets.settle(holds[2], 0.25);
    budgets.settle(holds[3], 0.1);
    await settled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: 'key', id: 'k1', tenant: 'acme', spent: 0.55 });
  });

  it('has nothing to reserve for a key and tenant without budgets, and admits when the store fails (fail open)', async () => {
    const { budgets, key, db } = setup();
    expect(await budgets.reserve({ ...key, budget: null }, 5)).toBeUndefined();
    db.close();
    const errors: unknown[] = [];
    const open = moneyBudgets({
      clock: testClock(),
      counters: sqliteSpendCounters(openModelsDb(':memory:')),
      tenants: { get: () => Promise.reject(new Error('down')) },
      onError: (e) => errors.push(e),
    });
    const failing = moneyBudgets({
      clock: testClock(),
      counters: {
        reserve: () => Promise.reject(new Error('down')),
        settle: () => Promise.reject(new Error('down')),
        read: () => Promise.reject(new Error('down')),
      },
      tenants: { get: async () => undefined },
      onError: (e) => errors.push(e),
    });
    await expect(open.reserve(key, 5)).rejects.toThrow(/budget_exceeded/);
    const h = await failing.reserve(key, 5);
    expect(h!.held[0].amount).toBe(0);
    failing.settle(h, 0.1);
    await settled();
    expect(errors.length).toBe(3);
  });
});
