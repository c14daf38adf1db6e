import type { Clock } from '../../shared/clock';
import { deploymentsOf, type CatalogModel } from '../catalog/catalog';
import type { DeploymentHealth } from '../routing/health';

/**
 * A catalog model's deployments in the admin API (issue 35): how each is configured (in the
 * model's view) and how it fares now (GET /models/{id}/deployments, the graph's
 * `AdminModel.deployments`). A credential is shown by its variable's name only, as `upstream` is.
 */
export interface DeploymentView {
  id: string;
  provider: CatalogModel['upstream']['provider'];
  base_url: string | null;
  model: string | null;
  region: string | null;
  credential_env: string | null;
  api_version: string | null;
  weight: number;
  rpm: number | null;
}

export const deploymentViews = (m: CatalogModel): DeploymentView[] =>
  deploymentsOf(m).map((d) => ({
    id: d.id,
    provider: d.upstream.provider,
    base_url: d.upstream.baseUrl ?? null,
    model: d.upstream.model ?? null,
    region: d.upstream.region ?? null,
    credential_env: d.upstream.credentialEnv ?? null,
    api_version: d.upstream.apiVersion ?? null,
    weight: d.weight,
    rpm: d.rpm ?? null,
  }));

/** One deployment with its state, as this replica sees it (cooldowns are every replica's when Redis is set). */
export interface DeploymentStateView {
  deployment: string;
  provider: string;
  region: string | null;
  weight: number;
  state: 'healthy' | 'cooling';
  cooling_until: string | null;
  recent_failures: number;
  in_flight: number;
  latency_ms: number | null;
  last_failure: { at: string; what: string } | null;
}

/** The states of a model's deployments now; every deployment is healthy when no health is given (the CLI). */
export function deploymentStates(health: DeploymentHealth | undefined, clock: Clock) {
  return (modelId: string, deployments: readonly DeploymentView[]): DeploymentStateView[] => {
    const now = clock.now();
    const states = health?.states(
      deployments.map((d) => ({ model: modelId, deployment: d.id })),
      now,
    );
    return deployments.map((d, i) => {
      const s = states?.[i];
      return {
        deployment: d.id,
        provider: d.provider,
        region: d.region,
        weight: d.weight,
        state: s?.state ?? 'healthy',
        cooling_until: s?.coolingUntil == null ? null : new Date(s.coolingUntil).toISOString(),
        recent_failures: s?.recentFailures ?? 0,
        in_flight: s?.inFlight ?? 0,
        latency_ms: s?.latencyMs ?? null,
        last_failure: s?.lastFailure ? { at: new Date(s.lastFailure.at).toISOString(), what: s.lastFailure.what } : null,
      };
    });
  };
}

export type DeploymentStatesOf = ReturnType<typeof deploymentStates>;
