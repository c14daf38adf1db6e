import { z } from 'zod';
import type { ModelsAdminApi } from '../../../core/models/admin-api';
import { defineAdmin } from '../../admin/common';
import { BudgetSpend, MoneyBudget, MoneyBudgetInput } from './keys';

/**
 * Tenants' money budgets (docs/spend.md): every call of a tenant's keys is held by it as by its
 * key's. A realm administrator reads and sets its own tenants' only (another's is 404).
 */
const tags = ['budgets'];
const Problem = z.object({ detail: z.string() });
const refused = {
  403: { description: 'Not an administrator', schema: Problem },
  404: { description: "No budget for this tenant, or another realm's tenant", schema: Problem },
};

const TenantBudget = MoneyBudget.extend({
  tenant_id: z.string(),
  updated_at: z.string(),
  updated_by: z.string(),
  spend: BudgetSpend.nullable().describe('What the tenant spent in the current period; null when the counters cannot be read'),
});
const TenantPath = z.object({ tenant: z.string().min(1).max(128) });

export const tenantBudgetRoutes = (api: ModelsAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/tenant-budgets',
    summary: "List tenants' money budgets",
    description: "A realm administrator sees its tenants' only.",
    tags,
    input: {},
    responses: { 200: { description: 'The budgets, by tenant', schema: z.object({ items: z.array(TenantBudget) }) }, 403: refused[403] },
    handle: (_q, { ctx }) => api.tenantBudgets.list({}, ctx),
  }),
  defineAdmin({
    method: 'get',
    path: '/tenant-budgets/:tenant',
    summary: "Read a tenant's money budget and its spend this period",
    tags,
    input: { path: TenantPath },
    responses: { 200: { description: 'The budget', schema: TenantBudget }, ...refused },
    handle: (p, { ctx }) => api.tenantBudgets.get(p, ctx),
  }),
  defineAdmin({
    method: 'put',
    path: '/tenant-budgets/:tenant',
    summary: "Set a tenant's money budget",
    description: 'Calls of its keys past it are refused with 429 `insufficient_quota` until the period ends.',
    tags,
    input: { path: TenantPath, body: MoneyBudgetInput },
    responses: {
      200: { description: 'The budget as set', schema: TenantBudget },
      400: { description: 'A bad amount, period or fraction', schema: Problem },
      ...refused,
    },
    handle: ({ tenant, body }, { ctx }) => api.tenantBudgets.put({ tenant, ...body }, ctx),
  }),
  defineAdmin({
    method: 'delete',
    path: '/tenant-budgets/:tenant',
    summary: "Remove a tenant's money budget",
    tags,
    input: { path: TenantPath },
    responses: { 200: { description: 'Removed', schema: z.object({ tenant_id: z.string(), deleted: z.literal(true) }) }, ...refused },
    handle: (p, { ctx }) => api.tenantBudgets.delete(p, ctx),
  }),
];
