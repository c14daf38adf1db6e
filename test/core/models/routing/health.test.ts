import type { DeploymentRef } from '../../../../core/models/routing/health';
import { memoryDeploymentHealth } from '../../../../core/models/routing/memory-health';
import { deploymentHealthContract } from './health-contract';

deploymentHealthContract('in process', async () => ({ health: memoryDeploymentHealth(), settle: async () => undefined }));

describe('deployment health in process', () => {
  const policy = { failures: 2, windowSeconds: 10, seconds: 5 };
  const d: DeploymentRef = { model: 'm', deployment: 'd' };

  it('reports each cooldown it starts once, and a lengthened one as not started', () => {
    const seen: [string, number, boolean][] = [];
    const h = memoryDeploymentHealth({ onCooldown: (ref, until, started) => seen.push([ref.deployment, until, started]) });
    h.failed(d, policy, 0, '500');
    h.failed(d, policy, 1, '500');
    h.failed(d, policy, 2, '500');
    h.failed(d, policy, 3, '429', 60_000);
    h.failed(d, policy, 4, '429', 30_000);
    expect(seen).toEqual([
      ['d', 5001, true],
      ['d', 60_000, false],
    ]);
  });

  it('adopts a cooldown started elsewhere without reporting it, keeping the later end', () => {
    const seen: unknown[] = [];
    const h = memoryDeploymentHealth({ onCooldown: (...args) => seen.push(args) });
    h.failed(d, policy, 0, '500');
    h.adopt(d, 9000);
    h.adopt(d, 4000);
    expect(h.cooling('m', 100).get('d')).toBe(9000);
    expect(h.states([d], 100)[0].recentFailures).toBe(0);
    expect(seen).toEqual([]);
  });

  it('takes a late echo of a cooldown it already knew (its own, published) for no new cooldown', () => {
    const h = memoryDeploymentHealth();
    h.failed(d, policy, 0, '500');
    h.failed(d, policy, 1, '500');
    h.failed(d, policy, 5002, '500');
    h.adopt(d, 5001);
    expect(h.cooling('m', 5002).size).toBe(0);
    expect(h.states([d], 5002)[0].recentFailures).toBe(1);
  });

  it("keeps a listener's exception away from the router", () => {
    const h = memoryDeploymentHealth({
      onCooldown: () => {
        throw new Error('listener down');
      },
    });
    expect(() => h.failed(d, policy, 0, '429', 60_000)).not.toThrow();
    expect(h.cooling('m', 0).get('d')).toBe(60_000);
  });

  it("holds at most the policy's count of failure instants per deployment", () => {
    const h = memoryDeploymentHealth();
    const wide = { failures: 1000, windowSeconds: 3600, seconds: 1 };
    for (let i = 0; i < 5000; i++) h.failed(d, { ...wide, failures: 3 + (i % 2) }, i * 100_000, '500');
    expect(h.states([d], 5000 * 100_000)[0].recentFailures).toBeLessThanOrEqual(4);
  });
});
