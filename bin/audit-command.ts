import type { AdminConnection } from '../clients/admin/connection';
import type { AuditTrail } from '../core/shared/admin/audit';
import { UsageError } from '../services/shared/cli';
import { everyItem } from '../services/shared/admin-cli';
import { auditView, instant } from '../rest/admin/audit';
import type { CommandFlags } from '../services/shared/module';

/**
 * `platform audit [--type T] [--actor A] [--realm R] [--tenant T] [--outcome success|failure]
 * [--from F] [--to T] [--order asc|desc] [--limit N]`: the audit trail, newest first, the same
 * events from the data directory's store and from a remote platform's `GET /audit-events`.
 */
export const AUDIT_FLAGS: CommandFlags = { values: ['type', 'actor', 'realm', 'tenant', 'outcome', 'from', 'to', 'order', 'limit'] };

export const AUDIT_USAGE = [
  'platform audit [--type T] [--actor A] [--realm R] [--tenant T] [--outcome success|failure]',
  '       [--from F] [--to T] [--order asc|desc] [--limit N]   audit events, the newest 100 unless --limit says',
];

/** The trail is long: without --limit, the newest 100. */
const DEFAULT_LIMIT = '100';

type Flags = Record<string, string | undefined>;

const oneOf = <T extends string>(v: string | undefined, name: string, allowed: readonly T[]): T | undefined => {
  if (v === undefined || (allowed as readonly string[]).includes(v)) return v as T | undefined;
  throw new UsageError(`--${name} takes ${allowed.join(' or ')}`);
};

const filtersOf = (f: Flags) => ({
  type: f.type,
  actor: f.actor,
  realm: f.realm,
  tenant: f.tenant,
  outcome: oneOf(f.outcome, 'outcome', ['success', 'failure'] as const),
  order: oneOf(f.order, 'order', ['asc', 'desc'] as const),
});

/** On the data directory's trail. */
export function localAudit(audit: AuditTrail, f: Flags) {
  const filters = { ...filtersOf(f), from: instant(f.from, 'from'), to: instant(f.to, 'to') };
  return everyItem(
    async ({ limit, cursor }) => {
      const page = await audit.query({ ...filters, limit: limit ?? 50, cursor });
      return { items: page.events.map(auditView), next_cursor: page.nextCursor };
    },
    { limit: f.limit ?? DEFAULT_LIMIT },
  );
}

/** On a remote platform's. */
export function remoteAudit(admin: AdminConnection, f: Flags) {
  const filters = { ...filtersOf(f), from: f.from, to: f.to };
  return everyItem((ask) => admin.page('/audit-events', { limit: ask.limit, cursor: ask.cursor }, filters), {
    limit: f.limit ?? DEFAULT_LIMIT,
  });
}
