export { MODELS, PUT, DEACTIVATE } from '../../operations/models';
/** The model catalog as the Models page reads and writes it: its GraphQL operations, a model's row, and its catalog entry. */

export interface ModelRow {
  id: string;
  group: string;
  kind: string;
  status: string;
  source: 'file' | 'admin';
  active: boolean;
  version: number;
  contextLength: number;
  maxOutputTokens: number | null;
  dimensions: number | null;
  inputKinds: string[];
  upstream: {
    provider: string;
    baseUrl: string | null;
    model: string | null;
    credentialEnv: string | null;
    region: string | null;
    apiVersion: string | null;
  };
  price: { inputPerMillion: number; outputPerMillion: number };
  deployments: DeploymentRow[];
}

/** A deployment of a model with its state, as the answering replica sees it (cooldowns are every replica's). */
export interface DeploymentRow {
  deployment: string;
  provider: string;
  baseUrl: string | null;
  model: string | null;
  region: string | null;
  credentialEnv: string | null;
  apiVersion: string | null;
  weight: number;
  rpm: number | null;
  state: 'healthy' | 'cooling';
  coolingUntil: string | null;
  inFlight: number;
  latencyMs: number | null;
}

/** `healthy`, or `cooling until hh:mm:ss` (the browser's time of day). */
export const deploymentStateOf = (d: DeploymentRow) =>
  d.state === 'cooling' && d.coolingUntil
    ? `cooling until ${new Date(d.coolingUntil).toLocaleTimeString('en-GB', { hour12: false })}`
    : 'healthy';

/** The form's first entry: an alias of the offline local model. */
export const EXAMPLE_ENTRY = { group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192 };
export const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** What the page shows as a model's state. */
export const stateOf = (m: ModelRow) => (m.active ? 'active' : m.status === 'Deactivated' ? 'deactivated' : `inactive (${m.status})`);

/**
 * A model's catalog entry as the catalog file would hold it, rebuilt from what the graph shows (the
 * graph gives no entry as such), active: what Reactivate puts again and Edit starts from. The
 * graph shows a deactivated model's status as `Deactivated`, so its own status is not known here:
 * the entry put back says `Active`.
 */
export function entryOf(m: ModelRow): Record<string, unknown> {
  const upstreamOf = (u: Pick<ModelRow['upstream'], 'baseUrl' | 'model' | 'credentialEnv' | 'region' | 'apiVersion'>, provider: string) => {
    const upstream: Record<string, string> = { provider };
    for (const k of ['baseUrl', 'model', 'credentialEnv', 'region', 'apiVersion'] as const) {
      const v = u[k];
      if (v !== null) upstream[k] = v;
    }
    return upstream;
  };
  const entry: Record<string, unknown> = {
    group: m.group,
    kind: m.kind,
    upstream: upstreamOf(m.upstream, m.upstream.provider),
    contextLength: m.contextLength,
  };
  // A model's own deployments are part of its entry; `default` alone is its upstream.
  if (m.deployments.some((d) => d.deployment !== 'default'))
    entry.deployments = m.deployments.map((d) => ({
      id: d.deployment,
      upstream: upstreamOf(d, d.provider),
      weight: d.weight,
      ...(d.rpm !== null ? { rpm: d.rpm } : {}),
    }));
  if (m.dimensions !== null) entry.dimensions = m.dimensions;
  if (m.maxOutputTokens !== null) entry.maxOutputTokens = m.maxOutputTokens;
  entry.price = m.price;
  entry.status = 'Active';
  entry.inputKinds = m.inputKinds;
  return entry;
}

/** The model being edited in the form: its id, entry and the version read. */
export interface Editing {
  id: string;
  entry: string;
  version?: number;
}
