import { z } from 'zod';
import type { SearchAdminApi } from '../../core/search/admin-api';
import { defineAdmin, ListQuery, PageOf, pageAsk } from '../admin/common';
import type { AdminFace } from '../shared/routes';

const DocumentsView = z.object({
  tenant_id: z.string(),
  documents: z.number().int().describe('Live objects, private ones included'),
  private_documents: z.number().int(),
  deleted_documents: z.number().int().describe('Soft-deleted objects, kept for audit'),
  passages: z.number().int().describe('Passages of live objects'),
  bytes: z.number().int().describe("Live objects' sizes added up"),
  repos: z.number().int().describe('Distinct repos of live objects'),
  folders: z.number().int().describe('Distinct folders of live objects'),
  last_updated_at: z.string().nullable().describe('When a live object last changed (ISO 8601)'),
});

const ReindexView = z.object({
  tenant_id: z.string(),
  passages: z.number().int().describe('Passages re-embedded'),
  embedder: z.string().describe('The embedder that made the new vectors'),
});

const Tenant = z.object({ tenant: z.string().min(1).max(128).describe('A tenant id (what tokens carry in `tenant_id`)') });

/**
 * Tenants' documents (rest/admin merges these under `/admin/api/v1`): per-tenant counts and a
 * reindex of one tenant. A realm administrator sees its own tenants only; others answer 404.
 */
export function searchAdminRoutes(api: SearchAdminApi): AdminFace {
  return {
    schemas: { DocumentsView, ReindexView },
    routes: [
      defineAdmin({
        method: 'get',
        path: '/documents',
        summary: "Tenants' documents",
        description:
          'What each tenant holds: live, private and deleted objects, passages, bytes, repos and folders. ' +
          'A platform administrator sees every tenant with objects; a realm administrator its own tenants. ' +
          'Sorts: `tenant_id` (default), `documents`, `passages`, `bytes`, `last_updated_at`.',
        tags: ['documents'],
        input: { query: ListQuery.extend({ q: z.string().max(128).optional().describe('A substring of the tenant id') }) },
        responses: { 200: { description: 'A page of tenants', schema: PageOf(DocumentsView) } },
        handle: (q, { ctx }) => api.listDocuments({ ...pageAsk(q), q: q.q }, ctx),
      }),
      defineAdmin({
        method: 'get',
        path: '/tenants/:tenant/documents',
        summary: "A tenant's documents",
        tags: ['documents'],
        input: { path: Tenant },
        responses: {
          200: { description: "The tenant's counts (zeros when it has none)", schema: DocumentsView },
          404: { description: 'Not a tenant of this administrator' },
        },
        handle: (p, { ctx }) => api.tenantDocuments({ tenant: p.tenant }, ctx),
      }),
      defineAdmin({
        method: 'post',
        path: '/tenants/:tenant/documents/reindex',
        summary: "Re-embed a tenant's passages",
        description:
          "Re-embeds the tenant's passages of live objects with the configured embedder (as `platform reindex` does for every tenant), " +
          'then every process rebuilds its vector indexes. Answers when done; 409 while a reindex of the tenant runs.',
        tags: ['documents'],
        input: { path: Tenant },
        responses: {
          200: { description: 'Done', schema: ReindexView },
          404: { description: 'Not a tenant of this administrator' },
          409: { description: 'A reindex of this tenant is running' },
        },
        handle: (p, { ctx }) => api.reindexTenant({ tenant: p.tenant }, ctx),
      }),
    ],
  };
}
