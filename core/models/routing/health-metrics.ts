import { noMetrics, type Metrics } from '../../shared/telemetry/metrics';
import type { DeploymentState } from './health';
import type { CooldownListener } from './memory-health';

/**
 * Counts each cooldown a replica starts (platform_model_cooldowns_total), as the health reports it
 * (memory-health.ts `onCooldown`): a lengthened cooldown, or one learned from another replica, is
 * not counted again, so the sum over replicas is the number of cooldowns. Labels are bounded: the
 * catalog's model and deployment ids. Undefined when metrics are off.
 */
export function cooldownCounter(metrics: Metrics = noMetrics): CooldownListener | undefined {
  if (metrics === noMetrics) return undefined;
  const cooldowns = metrics.counter({
    name: 'platform_model_cooldowns_total',
    help: 'Deployments entering cooldown (failed N times within the window, or a long Retry-After), by catalog model and deployment',
    labels: ['model', 'deployment'],
  });
  return (d, _until, started) => {
    if (started) cooldowns.inc({ model: d.model, deployment: d.deployment });
  };
}

/**
 * Each catalog deployment's state, read at scrape time from `states` (the health's view of the
 * catalog's deployments now): cooling (1/0; across workers the largest: any worker's cooldown) and
 * calls in flight (summed over workers).
 */
export function deploymentGauges(metrics: Metrics, states: () => DeploymentState[]): void {
  if (metrics === noMetrics) return;
  metrics.gauge({
    name: 'platform_model_deployment_cooling',
    help: 'Whether a deployment of a catalog model is in cooldown (1) or tried (0)',
    labels: ['model', 'deployment'],
    aggregate: 'max',
    collect: (g) => states().forEach((s) => g.set({ model: s.model, deployment: s.deployment }, s.state === 'cooling' ? 1 : 0)),
  });
  metrics.gauge({
    name: 'platform_model_deployment_in_flight',
    help: 'Calls in flight to a deployment of a catalog model',
    labels: ['model', 'deployment'],
    aggregate: 'sum',
    collect: (g) => states().forEach((s) => g.set({ model: s.model, deployment: s.deployment }, s.inFlight)),
  });
}
