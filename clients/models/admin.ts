import type { ModelsAdminApi } from '../../core/models/admin-api';
import { seg, type AdminConnection } from '../admin/connection';

/**
 * The model gateway's admin API (core/models/admin-api: keys, usage, tenants' budgets, the catalog) over its REST
 * paths, for the `platform` command against a remote platform: the same inputs, views and errors.
 */
export function modelsAdminClient(c: AdminConnection): ModelsAdminApi {
  return {
    keys: {
      list: ({ tenant, revoked, q, ...ask }) => c.page('/keys', ask, { tenant, revoked, q }),
      get: ({ id }) => c.request('GET', `/keys/${seg(id)}`),
      create: (input) => c.request('POST', '/keys', { json: input }),
      update: ({ id, budget }) => c.request('PATCH', `/keys/${seg(id)}`, { json: { budget } }),
      revoke: ({ id }) => c.request('DELETE', `/keys/${seg(id)}`),
      rotate: ({ id }) => c.request('POST', `/keys/${seg(id)}/rotate`),
    },
    usage: {
      list: ({ tenant, key, model, from, to, ...ask }) => c.page('/usage', ask, { tenant, key, model, from, to }),
    },
    tenantBudgets: {
      list: () => c.request('GET', '/tenant-budgets'),
      get: ({ tenant }) => c.request('GET', `/tenant-budgets/${seg(tenant)}`),
      put: ({ tenant, ...budget }) => c.request('PUT', `/tenant-budgets/${seg(tenant)}`, { json: budget }),
      delete: ({ tenant }) => c.request('DELETE', `/tenant-budgets/${seg(tenant)}`),
    },
    catalog: {
      list: async ({ active, source, ...ask }) => {
        const wire = await c.page<Awaited<ReturnType<ModelsAdminApi['catalog']['get']>>>('/models', ask, { active, source });
        return { items: wire.items, nextCursor: wire.next_cursor, total: wire.total };
      },
      get: ({ id }) => c.request('GET', `/models/${seg(id)}`),
      deployments: ({ id }) => c.request('GET', `/models/${seg(id)}/deployments`),
      put: ({ id, entry, version }) => c.request('PUT', `/models/${seg(id)}`, { json: entry, version }),
      deactivate: ({ id, version }) => c.request('DELETE', `/models/${seg(id)}`, { version }),
    },
  };
}
