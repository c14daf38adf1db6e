import { mayTenant, type Admin } from '../../core/shared/admin/access';
import type { AuditEvent, AuditTrail } from '../../core/shared/admin/audit';
import { DEFAULT_PAGE } from '../../core/shared/admin/paging';
import { BadRequest } from '../../core/shared/errors';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { AuditQuery, wireArgs } from './admin-args';

/**
 * `auditEvents`: the audit trail as `GET /admin/api/v1/audit-events` reads it. A platform
 * administrator reads every event; a realm administrator only those of its own realm, and of its
 * own tenants when it names a tenant (asking for another realm or tenant finds nothing, as there).
 */
function instant(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) throw new BadRequest(`${name}: an ISO 8601 time or epoch milliseconds`);
  return ms;
}

const shown = (e: AuditEvent) => ({ ...e, time: new Date(e.time) });

export const auditResolvers = (audit: AuditTrail, adminOf: CallOf<Admin>) => ({
  Query: {
    auditEvents: async (_: unknown, args: Record<string, unknown>, graph: GraphContext) => {
      const admin = (await adminOf(graph)).caller;
      const q = wireArgs(AuditQuery, args);
      const nothing = { items: [], nextCursor: null };
      if (!admin.platform && q.realm !== undefined && q.realm !== admin.realm) return nothing;
      if (q.tenant !== undefined && !mayTenant(admin, q.tenant)) return nothing;
      const page = await audit.query({
        from: instant(q.from, 'from'),
        to: instant(q.to, 'to'),
        actor: q.actor,
        realm: admin.platform ? q.realm : admin.realm,
        tenant: q.tenant,
        type: q.type,
        outcome: q.outcome,
        order: q.order,
        limit: q.limit ?? DEFAULT_PAGE,
        cursor: q.cursor,
      });
      return { items: page.events.map(shown), nextCursor: page.nextCursor };
    },
  },
});
