import { checkTenant, tenantsOf, type Admin } from '../shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../shared/admin/audit';
import { pageOf, type PageAsk } from '../shared/admin/paging';
import type { Ctx } from '../shared/context';
import { BadRequest, Conflict } from '../shared/errors';
import type { AdminStore, TenantDocuments } from './ports';
import type { SearchAdmin } from './admin';

/**
 * Tenants' documents in the admin API (docs/admin.md): what each tenant holds, and re-embedding
 * one tenant's passages. A platform administrator sees every tenant that has objects; a realm
 * administrator only its own tenants (its realm's id and its token's tenant, listed even when
 * empty), and another tenant answers 404 as if it did not exist.
 */
export interface DocumentsView {
  tenant_id: string;
  /** Live objects (private ones included). */
  documents: number;
  private_documents: number;
  /** Soft-deleted objects, kept for audit. */
  deleted_documents: number;
  /** Passages of live objects. */
  passages: number;
  /** Live objects' sizes added up. */
  bytes: number;
  /** Distinct repos and folders of live objects. */
  repos: number;
  folders: number;
  /** ISO 8601; null when the tenant has no live object. */
  last_updated_at: string | null;
}

export interface ReindexView {
  tenant_id: string;
  /** Passages re-embedded. */
  passages: number;
  /** The embedder that made the new vectors. */
  embedder: string;
}

export interface DocumentsPage {
  items: DocumentsView[];
  next_cursor: string | null;
  total: number;
}

export type AdminCtx = Ctx<Admin>;

export interface DocumentsList extends PageAsk {
  /** A substring of the tenant id, in any case. */
  q?: string;
}

export interface SearchAdminApi {
  listDocuments(q: DocumentsList, ctx: AdminCtx): Promise<DocumentsPage>;
  tenantDocuments(q: { tenant: string }, ctx: AdminCtx): Promise<DocumentsView>;
  /** Re-embeds the tenant's passages with the configured embedder (409 while one runs for it here). */
  reindexTenant(q: { tenant: string }, ctx: AdminCtx): Promise<ReindexView>;
}

const view = (t: TenantDocuments): DocumentsView => ({
  tenant_id: t.tenant,
  documents: t.documents,
  private_documents: t.privateDocuments,
  deleted_documents: t.deletedDocuments,
  passages: t.passages,
  bytes: t.bytes,
  repos: t.repos,
  folders: t.folders,
  last_updated_at: t.lastUpdatedAt === null ? null : new Date(t.lastUpdatedAt).toISOString(),
});

/** Tenant ids are what tokens carry: bounded, so a path cannot make the store compare megabytes. */
function tenantId(tenant: string): string {
  if (!tenant || tenant.length > 128) throw new BadRequest('tenant: 1 to 128 characters');
  return tenant;
}

export function createSearchAdminApi(d: { store: AdminStore; admin: SearchAdmin; audit: AuditTrail }): SearchAdminApi {
  /** Tenants being re-embedded by this process: a second request for one of them is refused, not queued (floods). */
  const reindexing = new Set<string>();

  return {
    async listDocuments(q, ctx) {
      const own = tenantsOf(ctx.caller);
      const rows = own ? (await Promise.all(own.map((t) => d.store.tenantDocuments(t)))).flat() : await d.store.tenantDocuments();
      const needle = q.q?.toLowerCase();
      const items = needle === undefined ? rows : rows.filter((t) => t.tenant.toLowerCase().includes(needle));
      const page = pageOf(items, q, {
        keyOf: (t) => t.tenant,
        sorts: {
          tenant_id: (t) => t.tenant,
          documents: (t) => t.documents,
          passages: (t) => t.passages,
          bytes: (t) => t.bytes,
          last_updated_at: (t) => t.lastUpdatedAt,
        },
      });
      return { items: page.items.map(view), next_cursor: page.nextCursor, total: page.total };
    },

    async tenantDocuments(q, ctx) {
      const tenant = tenantId(q.tenant);
      checkTenant(ctx.caller, tenant);
      const [found] = await d.store.tenantDocuments(tenant);
      return view(found);
    },

    reindexTenant(q, ctx) {
      const event = changeBy(ctx.caller, ctx, 'search', 'documents.reindex', {
        tenant: q.tenant.slice(0, 128),
        target: { kind: 'tenant', id: q.tenant.slice(0, 128) },
      });
      return audited(
        d.audit,
        event,
        async () => {
          const tenant = tenantId(q.tenant);
          checkTenant(ctx.caller, tenant);
          if (reindexing.has(tenant)) throw new Conflict(`tenant '${tenant}' is being reindexed already`);
          reindexing.add(tenant);
          try {
            const done = await d.admin.reindex(undefined, tenant);
            return { tenant_id: tenant, passages: done.passages, embedder: done.embedder };
          } finally {
            reindexing.delete(tenant);
          }
        },
        // `reembedded`: the audit trail drops keys that look like secrets, and `passages` starts with `pass`.
        (r) => ({ reembedded: r.passages, embedder: r.embedder }),
      );
    },
  };
}
