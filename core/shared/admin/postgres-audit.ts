import { migrateAt, type PgPool } from '../postgres';
import type { AuditStore } from './audit';
import { auditPage, auditRow, auditWhere } from './sqlite-audit';

/** The audit trail's tables on PostgreSQL (scope `audit`), run by every process that opens it and by `platform migrate`. */
export const AUDIT_PG_MIGRATIONS = [
  `CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    time BIGINT NOT NULL,
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

/** `?` placeholders as PostgreSQL's `$n`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** `audit_events` of DATABASE_URL: every replica appends to and reads the same trail. */
export async function pgAuditStore(url: string, pool: PgPool): Promise<AuditStore> {
  await migrateAt(url, pool, 'audit', AUDIT_PG_MIGRATIONS);
  return {
    append: async (e) =>
      void (await pool.query(
        'INSERT INTO audit_events (id, time, type, outcome, actor_name, actor_id, realm, tenant, event) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        auditRow(e),
      )),
    async query(q) {
      const { sql, args } = auditWhere(q);
      const { rows } = await pool.query<{ event: string }>(numbered(`SELECT event FROM audit_events ${sql} LIMIT ?`), [
        ...args,
        q.limit + 1,
      ]);
      return auditPage(rows, q.limit);
    },
    prune: async (before) => (await pool.query('DELETE FROM audit_events WHERE time < $1', [before])).rowCount ?? 0,
    close: () => undefined,
  };
}
