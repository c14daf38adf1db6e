import { join } from 'node:path';
import type { AuditStore } from '../core/shared/admin/audit';
import type { Config } from '../core/shared/config';
import type { PgPool } from '../core/shared/postgres';

/**
 * Where this process keeps audit events: PostgreSQL's `audit_events` when DATABASE_URL is set (every
 * replica writes and reads the same trail), else the data directory's `audit.db`.
 */
export async function openAuditStore(config: Config, postgres: PgPool | undefined): Promise<AuditStore> {
  if (config.DATABASE_URL && postgres) {
    const { pgAuditStore } = require('../core/shared/admin/postgres-audit') as typeof import('../core/shared/admin/postgres-audit');
    return pgAuditStore(config.DATABASE_URL, postgres);
  }
  const { openSqliteAudit } = require('../core/shared/admin/sqlite-audit') as typeof import('../core/shared/admin/sqlite-audit');
  return openSqliteAudit(join(config.PLATFORM_DATA_DIR, 'audit.db'));
}

/** A store known once `connect` opened it; events recorded before that are kept in memory and written then. */
export function lateAuditStore() {
  let store: AuditStore | undefined;
  const early: Parameters<AuditStore['append']>[0][] = [];
  const proxy: AuditStore = {
    append: async (e) => {
      if (store) return store.append(e);
      early.push(e);
    },
    query: async (q) => (store ? store.query(q) : { events: [], nextCursor: null }),
    prune: async (before) => (store ? store.prune(before) : 0),
    close: () => undefined,
  };
  return {
    proxy,
    opened: () => store !== undefined,
    open(s: AuditStore) {
      store = s;
      for (const e of early.splice(0)) void s.append(e);
    },
    async close() {
      const s = store;
      store = undefined;
      await s?.close();
    },
  };
}
