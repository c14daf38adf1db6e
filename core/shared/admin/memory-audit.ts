import { BadRequest } from '../errors';
import type { AuditEvent, AuditPage, AuditQuery, AuditStore } from './audit';

/**
 * The audit query's rules, shared by every store: the filters, the order (time, then id) and the
 * cursor (the last event's time and id, opaque to callers).
 */
export const encodeAuditCursor = (e: Pick<AuditEvent, 'time' | 'id'>): string =>
  Buffer.from(JSON.stringify([e.time, e.id])).toString('base64url');

export function decodeAuditCursor(cursor: string): { time: number; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string')
      return { time: v[0] as number, id: v[1] };
  } catch {
    // answered below
  }
  throw new BadRequest('cursor: not one this list gave');
}

export function matches(e: AuditEvent, q: AuditQuery): boolean {
  if (q.from !== undefined && e.time < q.from) return false;
  if (q.to !== undefined && e.time >= q.to) return false;
  if (q.actor !== undefined && e.actor.name !== q.actor && e.actor.id !== q.actor) return false;
  if (q.realm !== undefined && e.realm !== q.realm) return false;
  if (q.tenant !== undefined && e.tenant !== q.tenant) return false;
  if (q.outcome !== undefined && e.outcome !== q.outcome) return false;
  if (q.type !== undefined && !(q.type.endsWith('.') ? e.type.startsWith(q.type) : e.type === q.type)) return false;
  return true;
}

/** Events in memory (tests, and a core opened without a data directory). */
export function memoryAuditStore(): AuditStore & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return {
    events,
    append: async (e) => void events.push(e),
    async query(q): Promise<AuditPage> {
      const desc = q.order !== 'asc';
      const after = q.cursor ? decodeAuditCursor(q.cursor) : undefined;
      const cmp = (a: { time: number; id: string }, b: { time: number; id: string }) =>
        (a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) * (desc ? -1 : 1);
      const sorted = events.filter((e) => matches(e, q) && (!after || cmp(e, after) > 0)).sort(cmp);
      const page = sorted.slice(0, q.limit);
      return { events: page, nextCursor: sorted.length > q.limit ? encodeAuditCursor(page[page.length - 1]) : null };
    },
    async prune(before) {
      const kept = events.filter((e) => e.time >= before);
      const dropped = events.length - kept.length;
      events.splice(0, events.length, ...kept);
      return dropped;
    },
    close: () => undefined,
  };
}
