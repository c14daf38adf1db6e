import type { CooldownPolicy, DeploymentHealth, DeploymentRef } from '../../../../core/models/routing/health';

/** What every deployment-health adapter does for one replica; `settle` waits for any background work. */
export interface HealthHarness {
  health: DeploymentHealth;
  settle(): Promise<void>;
}

const policy: CooldownPolicy = { failures: 3, windowSeconds: 60, seconds: 30 };
const T0 = Date.UTC(2026, 0, 1);

export function deploymentHealthContract(name: string, open: () => Promise<HealthHarness>): void {
  describe(`deployment health: ${name}`, () => {
    let h: HealthHarness;
    beforeEach(async () => (h = await open()));
    afterEach(() => h.health.close());
    const a: DeploymentRef = { model: 'gpt-x', deployment: 'east' };
    const b: DeploymentRef = { model: 'gpt-x', deployment: 'west' };

    it('cools a deployment down after N failures within the window, for `seconds`, then lets it be tried again', async () => {
      h.health.failed(a, policy, T0, '500');
      h.health.failed(a, policy, T0 + 1000, '502');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 1000).size).toBe(0);
      h.health.failed(a, policy, T0 + 2000, 'timeout');
      await h.settle();
      expect([...h.health.cooling('gpt-x', T0 + 2000)]).toEqual([['east', T0 + 32_000]]);
      expect(h.health.cooling('gpt-x', T0 + 31_999).get('east')).toBe(T0 + 32_000);
      expect(h.health.cooling('gpt-x', T0 + 32_000).size).toBe(0);
      // Tried again with its count started afresh: one more failure does not cool it again.
      h.health.failed(a, policy, T0 + 33_000, '500');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 33_000).size).toBe(0);
    });

    it('forgets failures older than the window', async () => {
      h.health.failed(a, policy, T0, '500');
      h.health.failed(a, policy, T0 + 1000, '500');
      h.health.failed(a, policy, T0 + 60_500, '500');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 60_500).size).toBe(0);
      expect(h.health.states([a], T0 + 60_500)[0].recentFailures).toBe(2);
    });

    it('counts each deployment and each model apart', async () => {
      h.health.failed(a, policy, T0, '500');
      h.health.failed(b, policy, T0, '500');
      h.health.failed({ model: 'other', deployment: 'east' }, policy, T0, '500');
      h.health.failed(a, policy, T0 + 1, '500');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 1).size).toBe(0);
      h.health.failed(a, policy, T0 + 2, '500');
      await h.settle();
      expect([...h.health.cooling('gpt-x', T0 + 2).keys()]).toEqual(['east']);
      expect(h.health.cooling('other', T0 + 2).size).toBe(0);
    });

    it("cools down at once until a vendor's long Retry-After, an hour at most, and never shorter than `seconds`", async () => {
      h.health.failed(a, policy, T0, '429', T0 + 10 * 60_000);
      await h.settle();
      expect(h.health.cooling('gpt-x', T0).get('east')).toBe(T0 + 10 * 60_000);
      h.health.failed(b, policy, T0, '429', T0 + 5 * 3600_000);
      h.health.failed({ model: 'm', deployment: 'd' }, policy, T0, '429', T0 + 1000);
      await h.settle();
      expect(h.health.cooling('gpt-x', T0).get('west')).toBe(T0 + 3600_000);
      expect(h.health.cooling('m', T0).get('d')).toBe(T0 + 30_000);
    });

    it('lets a later Retry-After lengthen a cooldown, never shorten it', async () => {
      h.health.failed(a, policy, T0, '429', T0 + 120_000);
      h.health.failed(a, policy, T0 + 1000, '429', T0 + 60_000);
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 1000).get('east')).toBe(T0 + 120_000);
      h.health.failed(a, policy, T0 + 2000, '429', T0 + 600_000);
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 2000).get('east')).toBe(T0 + 600_000);
    });

    it('does not count failures that end during a cooldown towards the next one', async () => {
      for (let i = 0; i < 3; i++) h.health.failed(a, policy, T0 + i, '500');
      for (let i = 0; i < 5; i++) h.health.failed(a, policy, T0 + 10 + i, '500');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 30_002).size).toBe(0);
      h.health.failed(a, policy, T0 + 30_003, '500');
      await h.settle();
      expect(h.health.cooling('gpt-x', T0 + 30_003).size).toBe(0);
      expect(h.health.states([a], T0 + 30_003)[0].recentFailures).toBe(1);
    });

    it('counts calls in flight until each one ends, once', () => {
      const end1 = h.health.started(a);
      const end2 = h.health.started(a);
      h.health.started(b);
      expect(h.health.inFlight(a)).toBe(2);
      end1();
      end1();
      expect(h.health.inFlight(a)).toBe(1);
      end2();
      expect(h.health.inFlight(a)).toBe(0);
      expect(h.health.inFlight(b)).toBe(1);
      expect(h.health.inFlight({ model: 'never', deployment: 'called' })).toBe(0);
    });

    it('keeps a weighted mean of latency that follows a deployment turning slow', () => {
      expect(h.health.latencyMs(a)).toBeUndefined();
      h.health.succeeded(a, 100);
      expect(h.health.latencyMs(a)).toBe(100);
      for (let i = 0; i < 10; i++) h.health.succeeded(a, 1000);
      // The newest answer weighs 0.3: the first 100 ms weighs 0.7^10 after ten answers of 1000 ms.
      expect(h.health.latencyMs(a)).toBeCloseTo(1000 - 900 * 0.7 ** 10, 6);
    });

    it("states every deployment named, one never called as healthy, with the last failure's instant and kind", async () => {
      h.health.succeeded(a, 42);
      const end = h.health.started(a);
      h.health.failed(b, policy, T0, '429', T0 + 600_000);
      h.health.failed(a, policy, T0 + 5, 'timeout');
      await h.settle();
      const never = { model: 'gpt-x', deployment: 'north' };
      expect(h.health.states([a, b, never], T0 + 10)).toEqual([
        {
          ...a,
          state: 'healthy',
          coolingUntil: null,
          recentFailures: 1,
          inFlight: 1,
          latencyMs: 42,
          lastFailure: { at: T0 + 5, what: 'timeout' },
        },
        {
          ...b,
          state: 'cooling',
          coolingUntil: T0 + 600_000,
          recentFailures: 0,
          inFlight: 0,
          latencyMs: null,
          lastFailure: { at: T0, what: '429' },
        },
        { ...never, state: 'healthy', coolingUntil: null, recentFailures: 0, inFlight: 0, latencyMs: null, lastFailure: null },
      ]);
      end();
      expect(h.health.states([b], T0 + 600_000)[0].state).toBe('healthy');
    });
  });
}
