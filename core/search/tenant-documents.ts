import type { TenantDocuments } from './ports';

type Row = Record<string, unknown>;

/** BIGINT and SUM columns arrive as text from PostgreSQL, as numbers from SQLite; dates as Date or epoch ms. */
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const ms = (v: unknown): number | null => (v === null || v === undefined ? null : v instanceof Date ? v.getTime() : Number(v));

/**
 * What both adapters' two queries become (the counts per tenant; the distinct repos and folders per
 * tenant): one entry per tenant, sorted by name; `only` is listed with zeros when it has no objects.
 */
export function tenantDocumentsOf(only: string | undefined, counts: Row[], places: Row[]): TenantDocuments[] {
  const out = new Map<string, TenantDocuments>();
  const entry = (tenant: string) => {
    let e = out.get(tenant);
    if (!e)
      out.set(
        tenant,
        (e = {
          tenant,
          documents: 0,
          privateDocuments: 0,
          deletedDocuments: 0,
          passages: 0,
          bytes: 0,
          repos: 0,
          folders: 0,
          lastUpdatedAt: null,
        }),
      );
    return e;
  };
  if (only !== undefined) entry(only);
  for (const r of counts)
    Object.assign(entry(String(r.tenant)), {
      documents: num(r.documents),
      privateDocuments: num(r.private_documents),
      deletedDocuments: num(r.deleted_documents),
      passages: num(r.passages),
      bytes: num(r.bytes),
      lastUpdatedAt: ms(r.last_updated_at),
    });
  for (const r of places) {
    const field = String(r.field);
    if (field === 'repos' || field === 'folders') entry(String(r.tenant))[field] = num(r.n);
  }
  return [...out.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
}
