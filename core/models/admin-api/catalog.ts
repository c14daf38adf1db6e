import { requirePlatform, type Admin } from '../../shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../../shared/admin/audit';
import { pageOf, type Page, type PageAsk } from '../../shared/admin/paging';
import type { Clock } from '../../shared/clock';
import type { Ctx } from '../../shared/context';
import { BadRequest, Conflict, NotFound, PreconditionFailed } from '../../shared/errors';
import { parseCatalogEntry, type CatalogModel } from '../catalog/catalog';
import type { CatalogWrite, StoredModel } from '../catalog/catalog-store';
import { effectiveCatalog, type CatalogEntryState } from '../catalog/effective';
import type { LiveCatalog } from '../catalog/live-catalog';
import type { DeploymentHealth } from '../routing/health';
import { deploymentStates, deploymentViews, type DeploymentStateView, type DeploymentView } from './deployments';

/**
 * The model catalog in the admin API (docs/admin.md): every model with its state, read by any
 * administrator; added, replaced, deactivated and reactivated at run time by platform
 * administrators only. A change is kept in the store (models.db or PostgreSQL), served by this
 * process at once and by every other within the poll (live-catalog.ts). Audited as `model.put`
 * and `model.deactivate`.
 */
const SERVICE = 'models';

/** The most models the catalog may hold: the file's and the admin API's together (every call reads it; lists are whole). */
export const MAX_CATALOG_MODELS = 1000;

/** A catalog model as every admin face shows it (REST body, GraphQL in camelCase, the CLI's output). */
export interface ModelView {
  id: string;
  group: CatalogModel['group'];
  kind: CatalogModel['kind'];
  upstream: {
    provider: CatalogModel['upstream']['provider'];
    base_url: string | null;
    model: string | null;
    credential_env: string | null;
    region: string | null;
    api_version: string | null;
  };
  context_length: number;
  dimensions: number | null;
  max_output_tokens: number | null;
  price: { input_per_million: number; output_per_million: number };
  status: string;
  input_kinds: CatalogModel['inputKinds'];
  /** Its deployments (issue 35): its own, or its `upstream` as the one deployment `default`. */
  deployments: DeploymentView[];
  source: 'file' | 'admin';
  active: boolean;
  version: number;
  updated_at: string | null;
  updated_by: string | null;
}

export const modelView = ({ model: m, ...s }: CatalogEntryState): ModelView => ({
  id: m.id,
  group: m.group,
  kind: m.kind,
  upstream: {
    provider: m.upstream.provider,
    base_url: m.upstream.baseUrl ?? null,
    model: m.upstream.model ?? null,
    credential_env: m.upstream.credentialEnv ?? null,
    region: m.upstream.region ?? null,
    api_version: m.upstream.apiVersion ?? null,
  },
  context_length: m.contextLength,
  dimensions: m.dimensions ?? null,
  max_output_tokens: m.maxOutputTokens ?? null,
  price: { input_per_million: m.price.inputPerMillion, output_per_million: m.price.outputPerMillion },
  status: m.status,
  input_kinds: m.inputKinds,
  deployments: deploymentViews(m),
  source: s.source,
  active: s.active,
  version: s.version,
  updated_at: s.updatedAt === null ? null : new Date(s.updatedAt).toISOString(),
  updated_by: s.updatedBy,
});

export interface ModelListInput extends PageAsk {
  active?: boolean;
  source?: 'file' | 'admin';
}

export interface CatalogAdminDeps {
  catalog: LiveCatalog;
  audit: AuditTrail;
  clock: Clock;
  /** The deployments' health (core/models/routing); every deployment reads as healthy without it. */
  health?: DeploymentHealth;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A credential goes only where the operator sent it. `credentialEnv` names a variable of the
 * process whose value the gateway sends upstream: named freely through the API, it would send any
 * of the platform's secrets (its database password, search's LM key) to an address the caller
 * chose. So an entry given through the API may name one only as the catalog file does, for the
 * same provider and address (the file is the operator's, on every replica's disk).
 */
function checkCredential(m: CatalogModel, file: readonly CatalogModel[]): void {
  for (const d of m.deployments ?? []) checkUpstream(d.upstream, file, `deployments.${d.id}.upstream`);
  checkUpstream(m.upstream, file, 'upstream');
}

/** Every upstream a file model (or one of its deployments) sends a credential to. */
const fileUpstreams = (file: readonly CatalogModel[]) => file.flatMap((f) => [f.upstream, ...(f.deployments ?? []).map((d) => d.upstream)]);

function checkUpstream(upstream: CatalogModel['upstream'], file: readonly CatalogModel[], where: string): void {
  const { credentialEnv, provider, baseUrl } = upstream;
  if (!credentialEnv) return;
  const sent = fileUpstreams(file).some((u) => u.credentialEnv === credentialEnv && u.provider === provider && u.baseUrl === baseUrl);
  if (!sent)
    throw new BadRequest(
      `${where}.credentialEnv: ${credentialEnv} is not one the catalog file sends to ${provider}${baseUrl ? ` at ${baseUrl}` : ''}; ` +
        'a credential is named in the catalog file (a model there with the same provider and baseUrl), not through the API',
    );
}

export function catalogAdmin(d: CatalogAdminDeps) {
  const { catalog, audit, clock } = d;
  const statesOf = deploymentStates(d.health, clock);
  const fileHas = (id: string) => catalog.file.models.some((m) => m.id === id);

  /**
   * The catalog as the store holds it now: an administrator reads what another replica changed a
   * moment ago, before this one's poll (one cheap query when nothing changed). Calls through the
   * gateway read the process's snapshot, never the store.
   */
  const now = async () => {
    await catalog.refresh();
    return catalog.current();
  };
  const stateOf = async (id: string): Promise<CatalogEntryState | undefined> => (await now()).byId.get(id);

  /**
   * Writes a change under the version the caller read (none: whatever is there). A file model
   * never changed has version 1 and no row yet: its first change inserts one, unless another
   * got there first. A version that no longer holds is 412.
   */
  const write = async (w: CatalogWrite, version: number | undefined): Promise<StoredModel> => {
    const first = fileHas(w.id) ? 2 : 1;
    if (version === undefined) return (await catalog.write(w, 'any', first))!;
    let row = await catalog.write(w, { version }, first);
    if (!row && version === 1 && first === 2) row = await catalog.write(w, 'absent', first);
    if (!row) {
      // Another replica's change: served here from now on, not only from the next poll.
      await catalog.refresh();
      throw new PreconditionFailed(`model '${w.id}' has changed since version ${version}: read it again`);
    }
    return row;
  };

  /** The view of what was written (not of whatever another replica wrote since). */
  const viewOf = (row: StoredModel): ModelView => {
    const state = effectiveCatalog(catalog.file, [row]).byId.get(row.id);
    if (!state) throw new NotFound(`no model '${row.id}'`);
    return modelView(state);
  };

  const byWhom = (admin: Admin) => (admin.actor.name ?? admin.actor.id ?? admin.actor.kind).slice(0, 200);
  const event = (ctx: Ctx<Admin>, type: string, id: string) =>
    changeBy(ctx.caller, ctx, SERVICE, type, { target: { kind: 'model', id: id.slice(0, 200) } });

  return {
    async list(q: ModelListInput, _ctx: Ctx<Admin>): Promise<Page<ModelView>> {
      const found = [...(await now()).byId.values()].filter(
        (s) => (q.active === undefined || s.active === q.active) && (q.source === undefined || s.source === q.source),
      );
      const page = pageOf(found, q, {
        keyOf: (s) => s.model.id,
        sorts: {
          id: (s) => s.model.id,
          group: (s) => s.model.group,
          kind: (s) => s.model.kind,
          provider: (s) => s.model.upstream.provider,
          status: (s) => s.model.status,
          version: (s) => s.version,
          updated_at: (s) => s.updatedAt,
        },
      });
      return { ...page, items: page.items.map(modelView) };
    },

    async get({ id }: { id: string }, _ctx: Ctx<Admin>): Promise<ModelView> {
      const s = await stateOf(id);
      if (!s) throw new NotFound(`no model '${id}'`);
      return modelView(s);
    },

    /** The model's deployments with their state now (cooling, failures, calls in flight, latency); any administrator. */
    async deployments({ id }: { id: string }, _ctx: Ctx<Admin>): Promise<{ items: DeploymentStateView[] }> {
      const s = await stateOf(id);
      if (!s) throw new NotFound(`no model '${id}'`);
      return { items: statesOf(s.model.id, deploymentViews(s.model)) };
    },

    /** Adds or replaces `id` with `entry` (a catalog file's model, its `id` optional) and (re)activates it. */
    async put(input: { id: string; entry: unknown; version?: number }, ctx: Ctx<Admin>): Promise<ModelView> {
      const { id } = input;
      return audited(
        audit,
        event(ctx, 'model.put', id),
        async () => {
          requirePlatform(ctx.caller);
          if (!isObject(input.entry)) throw new BadRequest('the body: a catalog entry (a JSON object, as in the catalog file)');
          if (input.entry.id !== undefined && input.entry.id !== id) throw new BadRequest(`id: the entry's id must be the path's (${id})`);
          const parsed = parseCatalogEntry({ ...input.entry, id });
          if ('error' in parsed) throw new BadRequest(`the catalog entry: ${parsed.error}`);
          checkCredential(parsed.model, catalog.file.models);
          if (!(await stateOf(id)) && catalog.current().byId.size >= MAX_CATALOG_MODELS)
            throw new Conflict(`the catalog holds ${MAX_CATALOG_MODELS} models, its most: deactivate or replace one`);
          const row = await write({ id, entry: parsed.model, active: true, at: clock.now(), by: byWhom(ctx.caller) }, input.version);
          return viewOf(row);
        },
        (v) => ({ version: v.version, provider: v.upstream.provider, kind: v.kind, status: v.status, active: v.active }),
      );
    },

    /** Deactivates `id` (of either source): calls to it are refused as a deactivated model's until a put. */
    async deactivate(input: { id: string; version?: number }, ctx: Ctx<Admin>): Promise<ModelView> {
      const { id } = input;
      return audited(
        audit,
        event(ctx, 'model.deactivate', id),
        async () => {
          requirePlatform(ctx.caller);
          if (!(await stateOf(id))) throw new NotFound(`no model '${id}'`);
          const row = await write({ id, active: false, at: clock.now(), by: byWhom(ctx.caller) }, input.version);
          return viewOf(row);
        },
        (v) => ({ version: v.version, source: v.source }),
      );
    },
  };
}

export type CatalogAdmin = ReturnType<typeof catalogAdmin>;
