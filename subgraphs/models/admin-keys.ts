import { z } from 'zod';
import type { ModelsAdminApi, PageView } from '../../core/models/admin-api';
import type { Admin } from '../../core/shared/admin/access';
import { MAX_PAGE } from '../../core/shared/admin/paging';
import type { Ctx } from '../../core/shared/context';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { parseArgs } from '../shared/args';

/**
 * The models subgraph's admin fields for model keys and usage (docs/admin.md), through the same
 * admin API as the REST routes and the CLI (core/models/admin-api), so the answers are the REST
 * views camelCased and the same rules hold: a realm administrator's tenants only (another tenant's
 * key NOT_FOUND), models from the catalog, every change audited, the key's text only in the answer
 * that made it. The caller is an administrator's bearer token, not the `api-key` the gateway's
 * fields take. Arguments are bounded as the REST routes bound theirs (a subgraph may not import them).
 */
const Page = z.object({
  limit: z.int().min(1).max(MAX_PAGE).optional(),
  cursor: z.string().max(512).optional(),
  sort: z.string().max(64).optional(),
});
const KeyList = Page.extend({
  tenant: z.string().max(128).optional(),
  revoked: z.boolean().optional(),
  q: z.string().max(200).optional(),
});
const KeyRef = z.object({ id: z.string().min(1).max(100) });
const limit = z.int().min(1).max(1e12);
const KeyCreate = z.object({
  name: z.string().min(1).max(200),
  tenant_id: z.string().min(1).max(128).optional(),
  models: z.array(z.string().min(1).max(200)).max(200).optional(),
  requests_per_minute: limit.optional(),
  token_budget: limit.optional(),
  budget: z.object({ usd: z.number(), period: z.string().max(16).optional(), warn_at: z.number().optional() }).optional(),
  expires_at: z.date().optional(),
});
const KeyBudget = KeyRef.extend({
  budget: z.object({ usd: z.number(), period: z.string().max(16).optional(), warn_at: z.number().optional() }).optional(),
});
const BudgetSet = z.object({
  tenant: z.string().min(1).max(128),
  usd: z.number(),
  period: z.string().max(16).optional(),
  warn_at: z.number().optional(),
});
const TenantRef = z.object({ tenant: z.string().min(1).max(128) });
type BudgetArg = { usd?: unknown; period?: unknown; warnAt?: unknown } | null | undefined;
const budgetWire = (b: BudgetArg) => b && { usd: b.usd, period: b.period ?? undefined, warn_at: b.warnAt ?? undefined };
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day, YYYY-MM-DD');
const UsageList = Page.extend({
  tenant: z.string().max(128).optional(),
  key: z.string().max(100).optional(),
  model: z.string().max(200).optional(),
  from: day.optional(),
  to: day.optional(),
});
/** The GraphQL names of the paging arguments. */
const PAGING = { limit: 'first', cursor: 'after' };

type Args = Record<string, unknown>;

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** A view as GraphQL shows it: the REST view's fields camelCased, in its objects too (a budget, its spend). */
const shown = (view: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(view).map(([k, v]) => [camel(k), v !== null && typeof v === 'object' && !Array.isArray(v) ? shown(v as object) : v]),
  );
const page = (p: PageView<object>) => ({ items: p.items.map(shown), nextCursor: p.next_cursor, total: p.total });
const paged = (a: Args) => ({ ...a, limit: a.first, cursor: a.after, first: undefined, after: undefined });

export function keysAdminResolvers(api: ModelsAdminApi, adminOf: CallOf<Admin>) {
  /** A field's resolver: the administrator first (FORBIDDEN for anyone else, whatever it asked), then its arguments, then the core. */
  const field = (run: (args: Args, ctx: Ctx<Admin>) => Promise<unknown>) => async (_: unknown, args: Args, graph: GraphContext) =>
    run(args, await adminOf(graph));

  return {
    Query: {
      adminModelKeys: field(async (a, ctx) => page(await api.keys.list(parseArgs(KeyList, paged(a), PAGING), ctx))),
      adminModelKey: field(async (a, ctx) => shown(await api.keys.get(parseArgs(KeyRef, a), ctx))),
      adminUsage: field(async (a, ctx) => page(await api.usage.list(parseArgs(UsageList, paged(a), PAGING), ctx))),
      adminTenantBudgets: field(async (_a, ctx) => (await api.tenantBudgets.list({}, ctx)).items.map(shown)),
      adminTenantBudget: field(async (a, ctx) => shown(await api.tenantBudgets.get(parseArgs(TenantRef, a), ctx))),
    },
    Mutation: {
      adminCreateModelKey: field(async ({ input }, ctx) => {
        const i = input as Args;
        const wire = {
          name: i.name,
          tenant_id: i.tenantId,
          models: i.models,
          requests_per_minute: i.requestsPerMinute,
          token_budget: i.tokenBudget,
          budget: budgetWire(i.budget as BudgetArg) ?? undefined,
          expires_at: i.expiresAt,
        };
        const names = {
          tenant_id: 'tenantId',
          requests_per_minute: 'requestsPerMinute',
          token_budget: 'tokenBudget',
          expires_at: 'expiresAt',
        };
        const { expires_at, ...rest } = parseArgs(KeyCreate, wire, names, ['input']);
        return shown(await api.keys.create({ ...rest, expires_at: expires_at?.toISOString() }, ctx));
      }),
      adminRevokeModelKey: field(async (a, ctx) => shown(await api.keys.revoke(parseArgs(KeyRef, a), ctx))),
      adminRotateModelKey: field(async (a, ctx) => shown(await api.keys.rotate(parseArgs(KeyRef, a), ctx))),
      adminSetModelKeyBudget: field(async (a, ctx) => {
        // null removes the budget (parseArgs drops nulls, so it is put back); absent stays absent: the core asks for one.
        const parsed = parseArgs(KeyBudget, { id: a.id, budget: budgetWire(a.budget as BudgetArg) }, { warn_at: 'warnAt' });
        return shown(await api.keys.update(a.budget === null ? { ...parsed, budget: null } : parsed, ctx));
      }),
      adminSetTenantBudget: field(async (a, ctx) => {
        const wire = { tenant: a.tenant, ...budgetWire(a.budget as BudgetArg) };
        return shown(await api.tenantBudgets.put(parseArgs(BudgetSet, wire, { warn_at: 'warnAt' }), ctx));
      }),
      adminDeleteTenantBudget: field(async (a, ctx) => (await api.tenantBudgets.delete(parseArgs(TenantRef, a), ctx)).deleted),
    },
  };
}
