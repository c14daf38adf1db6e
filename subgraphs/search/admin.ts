import type { Admin } from '../../core/shared/admin/access';
import type { DocumentsView, SearchAdminApi } from '../../core/search/admin-api';
import type { GraphContext } from '../../edge/graphql/context';
import type { CallOf } from '../../edge/graphql/calls';

/**
 * The search subgraph's admin fields: tenants' documents, as the REST admin API answers them
 * (core/search/admin-api.ts) in camelCase. The caller is an administrator established from the
 * bearer token (a plain user or client gets FORBIDDEN); the core decides which tenants it sees.
 */
const documentsOf = (v: DocumentsView) => ({
  tenantId: v.tenant_id,
  documents: v.documents,
  privateDocuments: v.private_documents,
  deletedDocuments: v.deleted_documents,
  passages: v.passages,
  bytes: v.bytes,
  repos: v.repos,
  folders: v.folders,
  lastUpdatedAt: v.last_updated_at,
});

/** GraphQL's camelCase sort fields as the core's snake_case ones (`-lastUpdatedAt` → `-last_updated_at`). */
const snake = (sort: string | undefined) => sort?.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const searchAdminResolvers = (api: SearchAdminApi, adminOf: CallOf<Admin>) => ({
  Query: {
    adminDocuments: async (_: unknown, a: { first?: number; after?: string; sort?: string; q?: string }, ctx: GraphContext) => {
      const page = await api.listDocuments(
        { limit: a.first ?? undefined, cursor: a.after ?? undefined, sort: snake(a.sort ?? undefined), q: a.q ?? undefined },
        await adminOf(ctx),
      );
      return { items: page.items.map(documentsOf), nextCursor: page.next_cursor, total: page.total };
    },
    adminTenantDocuments: async (_: unknown, a: { tenant: string }, ctx: GraphContext) =>
      documentsOf(await api.tenantDocuments({ tenant: a.tenant }, await adminOf(ctx))),
  },
  Mutation: {
    adminReindexTenant: async (_: unknown, a: { tenant: string }, ctx: GraphContext) => {
      const r = await api.reindexTenant({ tenant: a.tenant }, await adminOf(ctx));
      return { tenantId: r.tenant_id, passages: r.passages, embedder: r.embedder };
    },
  },
});
