import type { PgPool } from '../../shared/postgres';
import type { TenantBudgetStore } from '../ports';
import type { TenantBudget } from '../spend/budget';

interface BudgetRow {
  tenant: string;
  usd: number;
  period: TenantBudget['period'];
  warn_at: number;
  updated_at: Date;
  updated_by: string;
}

const toBudget = (r: BudgetRow): TenantBudget => ({
  tenant: r.tenant,
  usd: r.usd,
  period: r.period,
  warnAt: r.warn_at,
  updatedAt: r.updated_at,
  updatedBy: r.updated_by,
});

/** The tenants' money budgets in PostgreSQL (`models_tenant_budgets`), seen alike by every replica. */
export function pgTenantBudgetStore(pool: PgPool): TenantBudgetStore {
  return {
    async get(tenant) {
      const { rows } = await pool.query<BudgetRow>({
        name: 'models.budgets.get',
        text: 'SELECT * FROM models_tenant_budgets WHERE tenant = $1',
        values: [tenant],
      });
      return rows[0] ? toBudget(rows[0]) : undefined;
    },
    async list(tenants) {
      const { rows } = await pool.query<BudgetRow>({
        name: 'models.budgets.list',
        text: 'SELECT * FROM models_tenant_budgets WHERE $1::text[] IS NULL OR tenant = ANY($1) ORDER BY tenant COLLATE "C"',
        values: [tenants ?? null],
      });
      return rows.map(toBudget);
    },
    async put(b) {
      await pool.query({
        name: 'models.budgets.put',
        text: `INSERT INTO models_tenant_budgets (tenant, usd, period, warn_at, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (tenant) DO UPDATE SET usd = excluded.usd, period = excluded.period, warn_at = excluded.warn_at,
            updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        values: [b.tenant, b.usd, b.period, b.warnAt, b.updatedAt, b.updatedBy],
      });
    },
    async delete(tenant) {
      const r = await pool.query({
        name: 'models.budgets.delete',
        text: 'DELETE FROM models_tenant_budgets WHERE tenant = $1',
        values: [tenant],
      });
      return (r.rowCount ?? 0) > 0;
    },
  };
}
