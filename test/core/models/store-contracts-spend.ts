import { randomUUID } from 'node:crypto';
import type { SpendCounters } from '../../../core/models/ports';
import type { Opened } from '../../shared/two-handles';

/**
 * The contract of the money counters (SpendCounters, core/models/ports.ts): two handles on one
 * store (two workers or replicas). Scopes are fresh per case, so a shared database or Redis is fine.
 */
export function spendCountersContract(name: string, open: () => Promise<Opened<SpendCounters>>) {
  describe(`SpendCounters contract: ${name}`, () => {
    let s: Opened<SpendCounters>;
    let scope: string;
    beforeEach(async () => {
      s = await open();
      scope = `key:${randomUUID()}`;
    });
    afterEach(() => s.close());

    it('reserves while spent + reserved + this fits the limit, and refuses beyond it without counting', async () => {
      expect(await s.one.read(scope, 0)).toEqual({ spent: 0, reserved: 0 });
      expect(await s.one.reserve(scope, 0, 600, 1000)).toBe(true);
      expect(await s.two.reserve(scope, 0, 500, 1000)).toBe(false);
      expect(await s.two.reserve(scope, 0, 400, 1000)).toBe(true);
      expect(await s.one.read(scope, 0)).toEqual({ spent: 0, reserved: 1000 });
      expect(await s.one.reserve(scope, 0, 1, 1000)).toBe(false);
      // Another period is another bucket.
      expect(await s.one.reserve(scope, 86_400_000, 1000, 1000)).toBe(true);
      // An amount alone over the limit is refused on an empty bucket too.
      expect(await s.one.reserve(`${scope}:x`, 0, 1001, 1000)).toBe(false);
      expect(await s.one.read(`${scope}:x`, 0)).toEqual({ spent: 0, reserved: 0 });
    });

    it('settles a reservation by the real cost (a release is a cost of 0), saying the spend before and after', async () => {
      await s.one.reserve(scope, 0, 600, 1000);
      await s.one.reserve(scope, 0, 300, 1000);
      expect(await s.two.settle(scope, 0, 600, 250)).toEqual({ before: 0, after: 250 });
      expect(await s.one.read(scope, 0)).toEqual({ spent: 250, reserved: 300 });
      expect(await s.two.settle(scope, 0, 300, 0)).toEqual({ before: 250, after: 250 });
      expect(await s.one.read(scope, 0)).toEqual({ spent: 250, reserved: 0 });
      // Room freed by the settles is reservable again: 250 spent, 750 left.
      expect(await s.one.reserve(scope, 0, 751, 1000)).toBe(false);
      expect(await s.one.reserve(scope, 0, 750, 1000)).toBe(true);
      // A settle without a reservation (admitted while the store failed) still counts its cost; reserved never goes below 0.
      expect(await s.one.settle(`${scope}:y`, 0, 0, 42)).toEqual({ before: 0, after: 42 });
      expect(await s.one.settle(`${scope}:y`, 0, 99, 0)).toEqual({ before: 42, after: 42 });
      expect(await s.two.read(`${scope}:y`, 0)).toEqual({ spent: 42, reserved: 0 });
    });

    it('admits exactly what fits when 50 reservations race on two handles, and sums the settles exactly', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? s.one : s.two).reserve(scope, 0, 70, 1000)));
      expect(results.filter(Boolean)).toHaveLength(14);
      await Promise.all(results.flatMap((ok, i) => (ok ? [(i % 2 ? s.two : s.one).settle(scope, 0, 70, 33)] : [])));
      expect(await s.one.read(scope, 0)).toEqual({ spent: 14 * 33, reserved: 0 });
    });

    it('lets exactly one of parallel settles see a threshold crossed', async () => {
      const line = 500;
      const settles = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? s.one : s.two).settle(scope, 0, 0, 37)));
      expect(settles.filter((r) => r.before < line && r.after >= line)).toHaveLength(1);
      expect(settles.map((r) => r.after).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => (i + 1) * 37));
    });
  });
}
