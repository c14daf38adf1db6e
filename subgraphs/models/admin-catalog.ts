import { JSONObjectResolver } from 'graphql-scalars';
import { z } from 'zod';
import type { CatalogAdmin, ModelView } from '../../core/models/admin-api/catalog';
import type { DeploymentView } from '../../core/models/admin-api/deployments';
import type { Admin } from '../../core/shared/admin/access';
import { MAX_PAGE, type Page } from '../../core/shared/admin/paging';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { parseArgs } from '../shared/args';

/**
 * The models subgraph's admin fields for the catalog (docs/admin.md): `adminModels`, `adminModel`,
 * `adminPutModel`, `adminDeactivateModel`, through the same admin API as the REST routes
 * (core/models/admin-api/catalog.ts), so the answers are the REST views camelCased and the same
 * rules hold (reads: any administrator; changes: platform administrators, FORBIDDEN otherwise; a
 * stale `version` PRECONDITION_FAILED; an entry the catalog file would refuse BAD_USER_INPUT). The
 * caller is an administrator's bearer token, not the `api-key` the other models fields take.
 */
const ModelList = z.object({
  limit: z.int().min(1).max(MAX_PAGE).optional(),
  cursor: z.string().max(512).optional(),
  sort: z.string().max(64).optional(),
  active: z.boolean().optional(),
  source: z.enum(['file', 'admin']).optional(),
});
const ModelRef = z.object({ id: z.string().min(1).max(200), version: z.int().min(1).optional() });

/** A model as GraphQL shows it: the REST view with its fields (and its upstream's and price's) camelCased. */
const shown = (v: ModelView) => ({
  id: v.id,
  group: v.group,
  kind: v.kind,
  upstream: {
    provider: v.upstream.provider,
    baseUrl: v.upstream.base_url,
    model: v.upstream.model,
    credentialEnv: v.upstream.credential_env,
    region: v.upstream.region,
    apiVersion: v.upstream.api_version,
  },
  contextLength: v.context_length,
  dimensions: v.dimensions,
  maxOutputTokens: v.max_output_tokens,
  price: { inputPerMillion: v.price.input_per_million, outputPerMillion: v.price.output_per_million },
  status: v.status,
  inputKinds: v.input_kinds,
  deployments: v.deployments,
  source: v.source,
  active: v.active,
  version: v.version,
  updatedAt: v.updated_at,
  updatedBy: v.updated_by,
});

type Args = Record<string, unknown>;

export function catalogAdminResolvers(api: { catalog: CatalogAdmin }, adminOf: CallOf<Admin>) {
  const page = (p: Page<ModelView>) => ({ items: p.items.map(shown), nextCursor: p.nextCursor, total: p.total });
  return {
    JSONObject: JSONObjectResolver,
    AdminModel: {
      /** The state is read only when asked for: the admin's own check, then this replica's health (no vendor call). */
      deployments: async (m: { id: string; deployments: DeploymentView[] }, _: Args, graph: GraphContext) => {
        const { items } = await api.catalog.deployments({ id: m.id }, await adminOf(graph));
        return items.map((s) => {
          const d = m.deployments.find((x) => x.id === s.deployment);
          return {
            deployment: s.deployment,
            provider: s.provider,
            baseUrl: d?.base_url ?? null,
            model: d?.model ?? null,
            region: s.region,
            credentialEnv: d?.credential_env ?? null,
            apiVersion: d?.api_version ?? null,
            weight: s.weight,
            rpm: d?.rpm ?? null,
            state: s.state,
            coolingUntil: s.cooling_until,
            recentFailures: s.recent_failures,
            inFlight: s.in_flight,
            latencyMs: s.latency_ms,
            lastFailure: s.last_failure,
          };
        });
      },
    },
    Query: {
      adminModels: async (_: unknown, a: Args, graph: GraphContext) => {
        const ctx = await adminOf(graph);
        const q = parseArgs(
          ModelList,
          { limit: a.first, cursor: a.after, sort: a.sort, active: a.active, source: a.source },
          { limit: 'first', cursor: 'after' },
        );
        return page(await api.catalog.list(q, ctx));
      },
      adminModel: async (_: unknown, a: Args, graph: GraphContext) => {
        const ctx = await adminOf(graph);
        return shown(await api.catalog.get(parseArgs(ModelRef, a), ctx));
      },
    },
    Mutation: {
      adminPutModel: async (_: unknown, { entry, ...a }: Args, graph: GraphContext) => {
        const ctx = await adminOf(graph);
        return shown(await api.catalog.put({ ...parseArgs(ModelRef, a), entry }, ctx));
      },
      adminDeactivateModel: async (_: unknown, a: Args, graph: GraphContext) => {
        const ctx = await adminOf(graph);
        return shown(await api.catalog.deactivate(parseArgs(ModelRef, a), ctx));
      },
    },
  };
}
