import { orderDeployments } from '../../../../core/models/routing/strategies';
import { ask, callerOf, chatModel, fakeHealth, routerOver } from './fakes';

/** A deterministic PRNG (mulberry32), so the weighted shares are the same on every run. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ids = (list: { id: string }[]) => list.map((d) => d.id);

describe('routing strategies', () => {
  const m = chatModel('x', [
    { id: 'a', weight: 3 },
    { id: 'b', weight: 1 },
    { id: 'z', weight: 0 },
  ]);
  const deps = m.deployments!;

  it('fallback: the deployments in their order', () => {
    expect(ids(orderDeployments('fallback', 'x', deps, { health: fakeHealth(), random: Math.random }))).toEqual(['a', 'b', 'z']);
  });

  it('weighted: the first pick follows the weights, weight 0 only last', () => {
    const random = seeded(42);
    const first = { a: 0, b: 0, z: 0 } as Record<string, number>;
    for (let i = 0; i < 4000; i++) {
      const order = ids(orderDeployments('weighted', 'x', deps, { health: fakeHealth(), random }));
      expect(order[2]).toBe('z');
      first[order[0]]++;
    }
    expect(first.z).toBe(0);
    expect(first.a / 4000).toBeGreaterThan(0.7);
    expect(first.a / 4000).toBeLessThan(0.8);
  });

  it('least-busy: the fewest calls in flight first', () => {
    const health = fakeHealth();
    health.setBusy('x@a', 3);
    health.setBusy('x@b', 1);
    expect(ids(orderDeployments('least-busy', 'x', deps, { health, random: () => 0.5 }))).toEqual(['z', 'b', 'a']);
  });

  it('latency: the untried first (each gets measured), then the fastest lately', () => {
    const health = fakeHealth();
    health.setLatency('x@a', 80);
    health.setLatency('x@z', 20);
    expect(ids(orderDeployments('latency', 'x', deps, { health, random: Math.random }))).toEqual(['b', 'z', 'a']);
  });

  it('least-busy through the router: a stream in flight sends the next call elsewhere', async () => {
    const lb = chatModel('x', ['a', 'b'], { strategy: 'least-busy' });
    const { router, calls } = routerOver([lb], {}, { random: () => 0 });
    await router.open(lb, 'chat', callerOf()).upstream(ask());
    await router.open(lb, 'chat', callerOf()).upstream(ask());
    expect(new Set(calls.map((c) => c.target))).toEqual(new Set(['x@a', 'x@b']));
  });

  it('the header’s strategy and deployments override the model’s', async () => {
    const { router, calls } = routerOver([m], {});
    await router.open(m, 'chat', callerOf(null, { deployments: ['b', 'a'] })).upstream(ask());
    expect(calls.map((c) => c.target)).toEqual(['x@b']);
  });
});
