import { z } from 'zod';
import { tenantsOf } from '../../core/shared/admin/access';
import type { AuditEvent, AuditTrail } from '../../core/shared/admin/audit';
import { BadRequest } from '../../core/shared/errors';
import { defineAdmin, ListQuery } from './common';

const time = (name: string) => z.string().max(40).optional().describe(`${name}: an ISO 8601 time or epoch milliseconds`);

const AuditQuery = ListQuery.omit({ sort: true }).extend({
  from: time('From (inclusive)'),
  to: time('To (exclusive)'),
  actor: z.string().max(256).optional().describe("The actor's name or id"),
  realm: z.string().max(128).optional(),
  tenant: z.string().max(128).optional(),
  type: z.string().max(128).optional().describe('An event type (`client.create`), or a prefix ending in `.` (`client.`)'),
  outcome: z.enum(['success', 'failure']).optional(),
  order: z.enum(['asc', 'desc']).optional().describe('By time; newest first by default'),
});

const AuditEventSchema = z.object({
  id: z.string(),
  time: z.string().describe('ISO 8601'),
  type: z.string(),
  outcome: z.enum(['success', 'failure']),
  actor: z.object({ kind: z.string(), realm: z.string().optional(), id: z.string().optional(), name: z.string().optional() }),
  realm: z.string().optional(),
  tenant: z.string().optional(),
  target: z.object({ kind: z.string(), id: z.string() }).optional(),
  address: z.string().optional(),
  service: z.string(),
  reason: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export function instant(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) throw new BadRequest(`${name}: an ISO 8601 time or epoch milliseconds`);
  return ms;
}

export const auditView = (e: AuditEvent) => ({ ...e, time: new Date(e.time).toISOString() });

/**
 * `GET /audit-events`: a platform administrator reads every event; a realm administrator those of
 * its realm (events in another realm, or in none, are not its to read).
 */
export const auditRoutes = (audit: AuditTrail) => [
  defineAdmin({
    method: 'get',
    path: '/audit-events',
    summary: 'Audit events',
    description: 'Administrative changes and security events, newest first, filtered by time, actor, realm, tenant, type and outcome.',
    tags: ['audit'],
    input: { query: AuditQuery },
    responses: {
      200: { description: 'A page of events', schema: z.object({ items: z.array(AuditEventSchema), next_cursor: z.string().nullable() }) },
    },
    handle: async (q, { ctx }) => {
      const admin = ctx.caller;
      let realm = q.realm;
      if (!admin.platform) {
        if (realm !== undefined && realm !== admin.realm) return { items: [], next_cursor: null };
        realm = admin.realm;
      }
      if (q.tenant !== undefined && !admin.platform && !tenantsOf(admin)!.includes(q.tenant)) return { items: [], next_cursor: null };
      const page = await audit.query({
        from: instant(q.from, 'from'),
        to: instant(q.to, 'to'),
        actor: q.actor,
        realm,
        tenant: q.tenant,
        type: q.type,
        outcome: q.outcome,
        order: q.order,
        limit: q.limit ?? 50,
        cursor: q.cursor,
      });
      return { items: page.events.map(auditView), next_cursor: page.nextCursor };
    },
  }),
];
