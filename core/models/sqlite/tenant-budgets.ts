import { statements, type Db, type Row } from '../../shared/sqlite';
import type { TenantBudgetStore } from '../ports';
import type { TenantBudget } from '../spend/budget';

const toBudget = (r: Row): TenantBudget => ({
  tenant: r.tenant as string,
  usd: r.usd as number,
  period: r.period as TenantBudget['period'],
  warnAt: r.warn_at as number,
  updatedAt: new Date(r.updated_at as number),
  updatedBy: r.updated_by as string,
});

/** The tenants' money budgets in models.db (`tenant_budgets`). */
export function sqliteTenantBudgetStore(db: Db): TenantBudgetStore {
  const s = statements(db);
  const get = s.one('SELECT * FROM tenant_budgets WHERE tenant = ?', toBudget);
  const list = s.many(
    'SELECT * FROM tenant_budgets WHERE ? IS NULL OR tenant IN (SELECT value FROM json_each(?)) ORDER BY tenant',
    toBudget,
  );
  const put = s.run(`INSERT INTO tenant_budgets (tenant, usd, period, warn_at, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant) DO UPDATE SET usd = excluded.usd, period = excluded.period, warn_at = excluded.warn_at,
      updated_at = excluded.updated_at, updated_by = excluded.updated_by`);
  const del = s.run('DELETE FROM tenant_budgets WHERE tenant = ?');
  return {
    get: async (tenant) => get(tenant),
    list: async (tenants) => {
      const json = tenants ? JSON.stringify(tenants) : null;
      return list(json, json);
    },
    put: async (b) => void put(b.tenant, b.usd, b.period, b.warnAt, b.updatedAt.getTime(), b.updatedBy),
    delete: async (tenant) => del(tenant) > 0,
  };
}
