import type { AnswerStore, LimitCounters } from '../../../core/models/ports';
import type { Opened } from '../../shared/two-handles';

/**
 * The contracts every adapter of the model gateway's ports passes (core/models/ports.ts): the answer
 * store and limit counters here, the key store and usage store in store-contracts-keys.ts and
 * store-contracts-usage.ts. `open` gives two handles on the same backing store (two workers), and a
 * way to let time pass: a test clock for SQLite, real time for Redis. The cases speak only to the
 * port, so an adapter over another database runs them unchanged.
 */
export type { Opened };

export function answerStoreContract(name: string, open: () => Promise<Opened<AnswerStore>>, ttlMs = 1000) {
  describe(`AnswerStore contract: ${name}`, () => {
    let s: Opened<AnswerStore>;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(() => s.close());

    it('answers what was set, from any handle; nothing for an unknown key; a new value replaces the old', async () => {
      expect(await s.one.get('absent')).toBeUndefined();
      await s.one.set('k', 'first', 60_000);
      expect(await s.two.get('k')).toBe('first');
      await s.two.set('k', 'second ✓', 60_000);
      expect(await s.one.get('k')).toBe('second ✓');
    });

    it('forgets a value once its time has passed', async () => {
      await s.one.set('short', 'v', ttlMs);
      await s.one.set('long', 'w', 60_000);
      await s.advance(ttlMs / 2);
      expect(await s.two.get('short')).toBe('v');
      await s.advance(ttlMs);
      expect(await s.two.get('short')).toBeUndefined();
      expect(await s.two.get('long')).toBe('w');
    });
  });
}

export function limitCountersContract(name: string, open: () => Promise<Opened<LimitCounters>>) {
  describe(`LimitCounters contract: ${name}`, () => {
    let s: Opened<LimitCounters>;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(() => s.close());

    it('admits `limit` requests in any window, counted by every handle, and says when the next fits', async () => {
      const t0 = s.now();
      for (let i = 0; i < 3; i++)
        expect(await (i % 2 ? s.one : s.two).takeRequest('a', 3, 60_000, t0 + i * 10_000)).toEqual({ admitted: true });
      expect(await s.one.takeRequest('a', 3, 60_000, t0 + 30_000)).toEqual({ admitted: false, retryAt: t0 + 60_000 });
      expect(await s.two.takeRequest('a', 3, 60_000, t0 + 59_999)).toEqual({ admitted: false, retryAt: t0 + 60_000 });
      // Another id has its own window.
      expect(await s.two.takeRequest('b', 1, 60_000, t0 + 59_999)).toEqual({ admitted: true });
      // At t0 + 60 s the first request has left the window: one more fits, then the second must leave.
      expect(await s.two.takeRequest('a', 3, 60_000, t0 + 60_000)).toEqual({ admitted: true });
      expect(await s.one.takeRequest('a', 3, 60_000, t0 + 60_001)).toEqual({ admitted: false, retryAt: t0 + 70_000 });
    });

    it('counts parallel requests exactly', async () => {
      const t0 = s.now();
      const all = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? s.one : s.two).takeRequest('p', 7, 60_000, t0 + i)));
      expect(all.filter((r) => r.admitted)).toHaveLength(7);
    });

    it('adds tokens per id and period, seen by every handle', async () => {
      expect(await s.one.tokensSpent('k', 1000)).toBe(0);
      await Promise.all([
        s.one.spendTokens('k', 1000, 30),
        s.two.spendTokens('k', 1000, 12),
        s.one.spendTokens('k', 2000, 5),
        s.two.spendTokens('j', 1000, 1),
      ]);
      expect(await s.two.tokensSpent('k', 1000)).toBe(42);
      expect(await s.one.tokensSpent('k', 2000)).toBe(5);
      expect(await s.one.tokensSpent('j', 1000)).toBe(1);
    });

    it('prunes the requests counted at or before an instant, and only those', async () => {
      const t0 = s.now();
      await s.one.takeRequest('a', 5, 60_000, t0);
      await s.one.takeRequest('a', 5, 60_000, t0 + 1);
      await s.one.takeRequest('c', 5, 60_000, t0 + 2);
      expect(await s.two.pruneRequests(t0 + 1)).toBe(2);
      // What was pruned no longer counts; what was not still does.
      for (let i = 0; i < 4; i++) expect((await s.one.takeRequest('c', 5, 60_000, t0 + 3)).admitted).toBe(true);
      expect((await s.one.takeRequest('c', 5, 60_000, t0 + 3)).admitted).toBe(false);
    });
  });
}
