import type { Deployment, Routing } from '../catalog/catalog';
import type { DeploymentHealth } from './health';

/**
 * The order a call tries a model's deployments in (issue 35), one function per strategy; the
 * router then skips the ones cooling down or at their `rpm`, and fails over down the list.
 * - `fallback`: as the catalog (or the `x-platform-route` header) lists them;
 * - `weighted`: a weighted random order (Efraimidis–Spirakis: each draws `u^(1/weight)`), so the
 *   first pick follows the weights and the rest are the failover order; weight 0 last, in order;
 * - `least-busy`: fewest calls in flight from this replica first, ties at random (a crowd of calls
 *   arriving at once spreads instead of piling on the first);
 * - `latency`: deployments never answered first (so each gets measured), then the fastest lately.
 */
export type Strategy = Routing['strategy'];

export interface OrderDeps {
  health: Pick<DeploymentHealth, 'inFlight' | 'latencyMs'>;
  random: () => number;
}

export function orderDeployments(strategy: Strategy, model: string, list: readonly Deployment[], d: OrderDeps): Deployment[] {
  const ref = (x: Deployment) => ({ model, deployment: x.id });
  switch (strategy) {
    case 'fallback':
      return [...list];
    case 'weighted': {
      const drawn = list.map((x, i) => ({ x, i, key: x.weight > 0 ? d.random() ** (1 / x.weight) : -1 }));
      return drawn.sort((a, b) => b.key - a.key || a.i - b.i).map((e) => e.x);
    }
    case 'least-busy': {
      const busy = list.map((x) => ({ x, n: d.health.inFlight(ref(x)), tie: d.random() }));
      return busy.sort((a, b) => a.n - b.n || a.tie - b.tie).map((e) => e.x);
    }
    case 'latency': {
      const timed = list.map((x, i) => ({ x, i, ms: d.health.latencyMs(ref(x)) ?? -1 }));
      return timed.sort((a, b) => a.ms - b.ms || a.i - b.i).map((e) => e.x);
    }
  }
}
