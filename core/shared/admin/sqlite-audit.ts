import { openDatabase } from '../sqlite';
import type { AuditEvent, AuditQuery, AuditStore } from './audit';
import { decodeAuditCursor, encodeAuditCursor } from './memory-audit';

const MIGRATIONS = [
  `CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    time INTEGER NOT NULL,
    type TEXT NOT NULL,
    outcome TEXT NOT NULL,
    actor_name TEXT,
    actor_id TEXT,
    realm TEXT,
    tenant TEXT,
    event TEXT NOT NULL
  );
  CREATE INDEX audit_events_time ON audit_events (time, id);
  CREATE INDEX audit_events_realm_time ON audit_events (realm, time);`,
];

/** What a query's filters become in SQL (SQLite and PostgreSQL alike, `?` placeholders). */
export function auditWhere(q: AuditQuery): { sql: string; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    args.push(...values);
  };
  if (q.from !== undefined) add('time >= ?', q.from);
  if (q.to !== undefined) add('time < ?', q.to);
  if (q.actor !== undefined) add('(actor_name = ? OR actor_id = ?)', q.actor, q.actor);
  if (q.realm !== undefined) add('realm = ?', q.realm);
  if (q.tenant !== undefined) add('tenant = ?', q.tenant);
  if (q.outcome !== undefined) add('outcome = ?', q.outcome);
  if (q.type !== undefined) {
    if (q.type.endsWith('.')) add('substr(type, 1, ?) = ?', q.type.length, q.type);
    else add('type = ?', q.type);
  }
  const desc = q.order !== 'asc';
  if (q.cursor) {
    const c = decodeAuditCursor(q.cursor);
    add(desc ? '(time < ? OR (time = ? AND id < ?))' : '(time > ? OR (time = ? AND id > ?))', c.time, c.time, c.id);
  }
  const order = desc ? 'ORDER BY time DESC, id DESC' : 'ORDER BY time, id';
  return { sql: `${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${order}`, args };
}

export const auditRow = (e: AuditEvent) => [
  e.id,
  e.time,
  e.type,
  e.outcome,
  e.actor.name ?? null,
  e.actor.id ?? null,
  e.realm ?? null,
  e.tenant ?? null,
  JSON.stringify(e),
];

/** A page from rows read one past the limit. */
export function auditPage(rows: { event: string }[], limit: number) {
  const events = rows.slice(0, limit).map((r) => JSON.parse(r.event) as AuditEvent);
  return { events, nextCursor: rows.length > limit ? encodeAuditCursor(events[events.length - 1]) : null };
}

/** The data directory's `audit.db`: one file every process of the directory appends to (WAL). */
export function openSqliteAudit(file: string): AuditStore {
  const db = openDatabase(file, MIGRATIONS, { durable: false });
  const insert = db.prepare(
    'INSERT INTO audit_events (id, time, type, outcome, actor_name, actor_id, realm, tenant, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const prune = db.prepare('DELETE FROM audit_events WHERE time < ?');
  return {
    append: async (e) => void insert.run(...auditRow(e)),
    async query(q) {
      const { sql, args } = auditWhere(q);
      const rows = db.prepare(`SELECT event FROM audit_events ${sql} LIMIT ?`).all(...args, q.limit + 1) as { event: string }[];
      return auditPage(rows, q.limit);
    },
    prune: async (before) => prune.run(before).changes,
    close: () => void db.close(),
  };
}
