import { checkTenant, tenantsOf, type Admin } from '../../shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../../shared/admin/audit';
import type { Clock } from '../../shared/clock';
import type { Ctx } from '../../shared/context';
import { BadRequest, NotFound } from '../../shared/errors';
import type { TenantBudgetStore } from '../ports';
import type { TenantBudget } from '../spend/budget';
import { budgetOf, budgetView, type BudgetInput, type BudgetView } from '../spend/budget-input';
import { SERVICE, type SpendView } from './keys';

/**
 * Tenants' money budgets in the admin API (`/tenant-budgets/{tenant}`, docs/spend.md): every call
 * of a tenant's keys reserves under it as under its key's. A platform administrator sets any
 * tenant's; a realm administrator its own tenants' only (another's answers 404, as keys do).
 * Changes are audited (`budget.set`, `budget.delete`).
 */
export type TenantBudgetView = BudgetView & {
  tenant_id: string;
  updated_at: string;
  updated_by: string;
  /** What the tenant spent in the current period (null when the counters cannot be read). */
  spend: SpendView | null;
};

export interface TenantBudgetsDeps {
  budgets: TenantBudgetStore;
  audit: AuditTrail;
  clock: Clock;
  spentOf(this: void, b: TenantBudget): Promise<SpendView | null>;
}

const TENANT = /^[\w.@:-]{1,128}$/;

export function tenantBudgetsAdmin(d: TenantBudgetsDeps) {
  const view = async (b: TenantBudget): Promise<TenantBudgetView> => ({
    tenant_id: b.tenant,
    ...budgetView(b),
    updated_at: b.updatedAt.toISOString(),
    updated_by: b.updatedBy,
    spend: await d.spentOf(b),
  });
  const tenantOf = (tenant: string) => {
    if (!TENANT.test(tenant)) throw new BadRequest('tenant: 1 to 128 letters, digits and . _ - @ :');
    return tenant;
  };
  const at = (admin: Admin, tenant: string) => ({
    realm: admin.platform ? tenant : admin.realm,
    tenant,
    target: { kind: 'tenant', id: tenant },
  });
  return {
    async list(_input: Record<string, never>, ctx: Ctx<Admin>): Promise<{ items: TenantBudgetView[] }> {
      return { items: await Promise.all((await d.budgets.list(tenantsOf(ctx.caller))).map(view)) };
    },
    async get({ tenant }: { tenant: string }, ctx: Ctx<Admin>): Promise<TenantBudgetView> {
      checkTenant(ctx.caller, tenant, `budget for tenant '${tenant}'`);
      const b = await d.budgets.get(tenant);
      if (!b) throw new NotFound(`No budget for tenant '${tenant}'`);
      return view(b);
    },
    async put({ tenant, ...input }: { tenant: string } & BudgetInput, ctx: Ctx<Admin>): Promise<TenantBudgetView> {
      const admin = ctx.caller;
      return audited(
        audit(d),
        changeBy(admin, ctx, SERVICE, 'budget.set', at(admin, tenant)),
        async () => {
          checkTenant(admin, tenantOf(tenant), `tenant '${tenant}'`);
          const b: TenantBudget = {
            tenant,
            ...budgetOf(input),
            updatedAt: new Date(d.clock.now()),
            updatedBy: admin.actor.name ?? admin.actor.id ?? admin.actor.kind,
          };
          await d.budgets.put(b);
          return view(b);
        },
        (v) => ({ usd: v.usd, period: v.period, warn_at: v.warn_at }),
      );
    },
    async delete({ tenant }: { tenant: string }, ctx: Ctx<Admin>): Promise<{ tenant_id: string; deleted: true }> {
      const admin = ctx.caller;
      return audited(audit(d), changeBy(admin, ctx, SERVICE, 'budget.delete', at(admin, tenant)), async () => {
        checkTenant(admin, tenant, `budget for tenant '${tenant}'`);
        if (!(await d.budgets.delete(tenant))) throw new NotFound(`No budget for tenant '${tenant}'`);
        return { tenant_id: tenant, deleted: true as const };
      });
    },
  };
}

const audit = (d: TenantBudgetsDeps) => d.audit;

export type TenantBudgetsAdmin = ReturnType<typeof tenantBudgetsAdmin>;
