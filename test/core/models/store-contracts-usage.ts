import { randomUUID } from 'node:crypto';
import type { UsageStore } from '../../../core/models/ports';
import type { UsageRecord, UsageTotals } from '../../../core/models/usage/usage';
import type { Opened } from './store-contracts';

const ZERO: UsageTotals = { requests: 0, tokens_in: 0, tokens_out: 0, words_sent: 0, words_received: 0, cache_hits: 0, errors: 0, cost: 0 };

export function usageStoreContract(name: string, open: () => Promise<Opened<UsageStore>>) {
  describe(`UsageStore contract: ${name}`, () => {
    let s: Opened<UsageStore>;
    let tenant: (name: string) => string;
    let call: (over: Partial<UsageRecord> & { tenant: string }) => UsageRecord;
    beforeEach(async () => {
      s = await open();
      const run = randomUUID();
      tenant = (n) => `${n}-${run}`;
      call = (over) => ({
        at: s.now(),
        keyId: `key-${run}`,
        model: 'm',
        route: 'test.chat',
        status: 200,
        latencyMs: 12.5,
        upstreamMs: 10,
        tokensIn: 10,
        tokensOut: 5,
        wordsSent: 7,
        wordsReceived: 3,
        cache: 'MISS',
        guard: 'off',
        options: { Bot_Id: 'b1', is_system: 0 },
        ...over,
      });
    });
    afterEach(() => s.close());

    it("keeps each tenant's calls out of every other tenant's totals", async () => {
      await Promise.all([
        s.one.record(call({ tenant: tenant('a'), tokensIn: 100 }), 0.5),
        s.two.record(call({ tenant: tenant('b'), tokensIn: 1 }), 0.25),
        s.two.record(call({ tenant: tenant('b'), tokensIn: 2 }), 0.25),
      ]);
      const window = [s.now() - 1000, s.now() + 1000] as const;
      const a = await s.two.totals(tenant('a'), ...window);
      expect(a.totals).toEqual({ ...ZERO, requests: 1, tokens_in: 100, tokens_out: 5, words_sent: 7, words_received: 3, cost: 0.5 });
      expect((await s.one.totals(tenant('b'), ...window)).totals).toMatchObject({ requests: 2, tokens_in: 3, cost: 0.5 });
      expect(await s.one.totals(tenant('c'), ...window)).toEqual({ totals: ZERO, byModel: [] });
    });

    it('sums per model, ordered by model id', async () => {
      const t = tenant('a');
      await Promise.all([
        s.one.record(call({ tenant: t, model: 'zeta', tokensIn: 4, tokensOut: 6, wordsSent: 1, wordsReceived: 2 }), 0.125),
        s.two.record(call({ tenant: t, model: 'alpha', tokensIn: 1, tokensOut: 1, wordsSent: 3, wordsReceived: 4 }), 0.5),
        s.one.record(call({ tenant: t, model: 'zeta', tokensIn: 10, tokensOut: 0, wordsSent: 5, wordsReceived: 0 }), 0.25),
      ]);
      const r = await s.two.totals(t, s.now(), s.now() + 1);
      expect(r.byModel).toEqual([
        { model: 'alpha', ...ZERO, requests: 1, tokens_in: 1, tokens_out: 1, words_sent: 3, words_received: 4, cost: 0.5 },
        { model: 'zeta', ...ZERO, requests: 2, tokens_in: 14, tokens_out: 6, words_sent: 6, words_received: 2, cost: 0.375 },
      ]);
      expect(r.totals).toEqual({ ...ZERO, requests: 3, tokens_in: 15, tokens_out: 7, words_sent: 9, words_received: 6, cost: 0.875 });
    });

    it('counts the calls at or after `from` and before `to`', async () => {
      const t = tenant('a');
      const t0 = s.now();
      await Promise.all([t0 - 1, t0, t0 + 999, t0 + 1000].map((at, i) => s.one.record(call({ tenant: t, at, tokensIn: 10 ** i }), 0)));
      expect((await s.two.totals(t, t0, t0 + 1000)).totals).toMatchObject({ requests: 2, tokens_in: 110 });
      expect((await s.two.totals(t, t0 + 1000, t0 + 2000)).totals).toMatchObject({ requests: 1, tokens_in: 1000 });
      expect((await s.two.totals(t, t0 + 1, t0 + 1)).totals).toEqual(ZERO);
    });

    it('counts the cache hits and the calls that failed (status 400 and over)', async () => {
      const t = tenant('a');
      const calls: [number, string][] = [
        [200, 'HIT'],
        [200, 'MISS'],
        [200, 'BYPASS'],
        [399, 'HIT'],
        [400, 'MISS'],
        [429, 'BYPASS'],
        [499, 'MISS'],
        [502, 'HIT'],
      ];
      await Promise.all(calls.map(([status, cache]) => s.one.record(call({ tenant: t, status, cache }), 0)));
      const r = await s.two.totals(t, s.now(), s.now() + 1);
      expect(r.totals).toMatchObject({ requests: 8, cache_hits: 3, errors: 4 });
      expect(r.byModel).toEqual([{ model: 'm', ...r.totals }]);
    });

    it("counts a handle's own calls as soon as they are recorded, and every handle's once flushed", async () => {
      const t = tenant('a');
      const kept = s.one.record(call({ tenant: t, tokensIn: 1 }), 0);
      expect((await s.one.totals(t, s.now(), s.now() + 1)).totals.requests).toBe(1);
      void s.two.record(call({ tenant: t, tokensIn: 2 }), 0);
      await s.two.flush();
      expect((await s.one.totals(t, s.now(), s.now() + 1)).totals).toMatchObject({ requests: 2, tokens_in: 3 });
      await kept;
    });
  });
}
