import type { AuditTrail } from '../../shared/admin/audit';
import type { Clock } from '../../shared/clock';
import type { LiveCatalog } from '../catalog/live-catalog';
import type { ApiKeys } from '../keys/keys';
import type { TenantBudgetStore, UsageStore } from '../ports';
import type { MoneyBudgets } from '../spend/budgets';
import type { ApiKey } from '../keys/api-key';
import type { TenantBudget } from '../spend/budget';
import { tenantBudgetsAdmin } from './tenant-budgets';
import type { DeploymentHealth } from '../routing/health';
import { catalogAdmin } from './catalog';
import { keysAdmin } from './keys';
import { usageAdmin } from './usage';

export { keyView, type KeyView, type NewKeyView, type KeyCreateInput, type KeyListInput, type KeyUpdateInput } from './keys';
export { usageRow, type UsageRow, type UsageInput } from './usage';
export type { TenantBudgetView } from './tenant-budgets';
export type { SpendView } from './keys';
export type { PageView } from './page';
export type { DeploymentView, DeploymentStateView } from './deployments';

export interface ModelsAdminDeps {
  keys: ApiKeys;
  usage: UsageStore;
  catalog: LiveCatalog;
  audit: AuditTrail;
  clock: Clock;
  /** The money budgets' counters (what a key or tenant spent this period) and the tenants' budgets. */
  budgets: MoneyBudgets;
  tenantBudgets: TenantBudgetStore;
  health?: DeploymentHealth;
}

/**
 * The model gateway's part of the admin API (docs/admin.md), one object for every face: the REST
 * routes (rest/models/admin), the subgraph's admin fields and the `platform` command. Each method
 * takes `(input, ctx)` whose caller is an administrator and answers the views the faces show.
 */
export function createModelsAdminApi(d: ModelsAdminDeps) {
  const { catalog } = d;
  const missing = (ids: readonly string[]) => ids.filter((id) => !catalog.current().byId.has(id));
  /** A model another replica added a moment ago is looked for in the store before it is called unknown. */
  const notInCatalog = async (ids: readonly string[]) => {
    if (missing(ids).length === 0) return [];
    await catalog.refresh();
    return missing(ids);
  };
  /** A budget's spend this period as the admin faces show it; null when the counters cannot be read. */
  const spend = (kind: 'key' | 'tenant', id: string, b: NonNullable<ApiKey['budget']>) =>
    d.budgets.spent(kind, id, b).then(
      (s) => ({
        spent_usd: s.spent,
        reserved_usd: s.reserved,
        period_start: new Date(s.periodStart).toISOString(),
        period_end: new Date(s.periodEnd).toISOString(),
      }),
      () => null,
    );
  return {
    keys: keysAdmin({ ...d, notInCatalog, spentOf: (k) => spend('key', k.id, k.budget!) }),
    tenantBudgets: tenantBudgetsAdmin({
      budgets: d.tenantBudgets,
      audit: d.audit,
      clock: d.clock,
      spentOf: (b: TenantBudget) => spend('tenant', b.tenant, b),
    }),
    usage: usageAdmin(d),
    catalog: catalogAdmin({ catalog, audit: d.audit, clock: d.clock, health: d.health }),
  };
}

export type ModelsAdminApi = ReturnType<typeof createModelsAdminApi>;
