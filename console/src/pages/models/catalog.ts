/** The model catalog as the Models page reads and writes it: its GraphQL operations, a model's row, and its catalog entry. */

export const MODEL_FIELDS = `id group kind status source active version contextLength maxOutputTokens dimensions inputKinds
  upstream { provider baseUrl model credentialEnv region apiVersion } price { inputPerMillion outputPerMillion }`;
export const MODELS = `query ConsoleModels($active: Boolean, $source: String, $after: String) {
  adminModels(active: $active, source: $source, first: 25, after: $after, sort: "id") { items { ${MODEL_FIELDS} } nextCursor total }
}`;
export const PUT = `mutation ConsolePutModel($id: ID!, $entry: JSONObject!, $version: Int) {
  adminPutModel(id: $id, entry: $entry, version: $version) { ${MODEL_FIELDS} }
}`;
export const DEACTIVATE = `mutation ConsoleDeactivateModel($id: ID!, $version: Int) { adminDeactivateModel(id: $id, version: $version) { ${MODEL_FIELDS} } }`;

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
}

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
  const upstream: Record<string, string> = { provider: m.upstream.provider };
  for (const k of ['baseUrl', 'model', 'credentialEnv', 'region', 'apiVersion'] as const) {
    const v = m.upstream[k];
    if (v !== null) upstream[k] = v;
  }
  const entry: Record<string, unknown> = { group: m.group, kind: m.kind, upstream, contextLength: m.contextLength };
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
