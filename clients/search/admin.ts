import type { SearchAdminApi } from '../../core/search/admin-api';
import { seg, type AdminConnection } from '../admin/connection';

/** Tenants' documents in the admin API (core/search/admin-api.ts) over its REST paths, for the `platform` command against a remote platform. */
export function searchAdminClient(c: AdminConnection): SearchAdminApi {
  return {
    listDocuments: ({ q, ...ask }) => c.page('/documents', ask, { q }),
    tenantDocuments: ({ tenant }) => c.request('GET', `/tenants/${seg(tenant)}/documents`),
    reindexTenant: ({ tenant }) => c.request('POST', `/tenants/${seg(tenant)}/documents/reindex`),
  };
}
