import { randomUUID } from 'node:crypto';
import type { UsageStore } from '../../../core/models/ports';
import type { UsageRecord, UsageTotals } from '../../../core/models/usage/usage';
import type { Opened } from './store-contracts';

const DAY = 86_400_000;
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

    it('counts the cache hits (exact and semantic) and the calls that failed (status 400 and over)', async () => {
      const t = tenant('a');
      const calls: [number, string][] = [
        [200, 'HIT'],
        [200, 'SEMANTIC_HIT'],
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
      expect(r.totals).toMatchObject({ requests: 9, cache_hits: 4, errors: 4 });
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

    it('sums per UTC day, tenant, key and model, filtered and paged in a total order', async () => {
      const [a, b] = [tenant('a'), tenant('b')];
      const day0 = Math.floor(s.now() / DAY) * DAY;
      const iso = (at: number) => new Date(at).toISOString().slice(0, 10);
      await Promise.all([
        s.one.record(call({ tenant: a, at: day0 + 1, keyId: 'k1', model: 'm1', tokensIn: 1 }), 0.5),
        s.two.record(call({ tenant: a, at: day0 + DAY - 1, keyId: 'k1', model: 'm1', tokensIn: 2, status: 500 }), 0.25),
        s.one.record(call({ tenant: a, at: day0 + DAY, keyId: 'k1', model: 'm1', tokensIn: 4 }), 0),
        s.two.record(call({ tenant: a, at: day0 + 5, keyId: 'k2', model: 'm1', tokensIn: 8 }), 0),
        s.one.record(call({ tenant: b, at: day0 + 5, keyId: 'k3', model: 'm2', tokensIn: 16 }), 0),
      ]);
      const all = { tenants: [a, b], from: day0, to: day0 + 2 * DAY, desc: false, limit: 10 };
      const r = await s.two.daily(all);
      expect(r.total).toBe(4);
      expect(r.rows.map((x) => [x.day, x.tenant, x.keyId, x.model, x.requests, x.tokens_in])).toEqual([
        [iso(day0), a, 'k1', 'm1', 2, 3],
        [iso(day0), a, 'k2', 'm1', 1, 8],
        [iso(day0), b, 'k3', 'm2', 1, 16],
        [iso(day0 + DAY), a, 'k1', 'm1', 1, 4],
      ]);
      expect(r.rows[0]).toMatchObject({ errors: 1, cost: 0.75, tokens_out: 10, words_sent: 14, cache_hits: 0 });
      const desc = await s.one.daily({ ...all, desc: true });
      expect(desc.rows.map((x) => x.day + x.keyId)).toEqual([iso(day0 + DAY) + 'k1', iso(day0) + 'k1', iso(day0) + 'k2', iso(day0) + 'k3']);
      // Pages of one continue after the last row, in both orders.
      for (const order of [false, true]) {
        const seen: string[] = [];
        let after: (typeof r.rows)[number] | undefined;
        for (let i = 0; i < 5; i++) {
          const p = await s.one.daily({ ...all, desc: order, limit: 1, after });
          if (!p.rows.length) break;
          expect(p.total).toBe(4);
          after = p.rows[0];
          seen.push(after.day + after.keyId);
        }
        expect(seen).toEqual((order ? desc : r).rows.map((x) => x.day + x.keyId));
      }
      expect((await s.one.daily({ ...all, tenants: [b] })).rows.map((x) => x.keyId)).toEqual(['k3']);
      expect((await s.one.daily({ ...all, tenants: [] })).total).toBe(0);
      expect((await s.one.daily({ ...all, keyId: 'k1' })).rows.map((x) => x.tokens_in)).toEqual([3, 4]);
      expect((await s.one.daily({ ...all, model: 'm2' })).rows.map((x) => x.keyId)).toEqual(['k3']);
      expect((await s.one.daily({ ...all, from: day0 + DAY })).rows.map((x) => x.tokens_in)).toEqual([4]);
    });
  });
}
