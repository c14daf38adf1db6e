import { AUDIT_PG_MIGRATIONS } from '../core/shared/admin/postgres-audit';
import { REPLICAS_PG_MIGRATIONS } from '../core/shared/overview/postgres-replicas';
import type { Config } from '../core/shared/config';
import { migrateAt, openPool, postgresWhere } from '../core/shared/postgres';
import type { ServiceModule } from '../services/shared/module';
import { UsageError } from '../services/shared/cli';

/**
 * `platform migrate`: brings DATABASE_URL's tables up to this platform's version, every service's,
 * the audit trail's and the replicas' (replicas do it as they start too; this is for a release step before them). Without
 * DATABASE_URL there is nothing to do: SQLite files are migrated as they are opened.
 */
export async function migrateDatabase(config: Config, modules: readonly ServiceModule[]) {
  if (!config.DATABASE_URL)
    throw new UsageError('DATABASE_URL is not set: the SQLite files of the data directory are migrated as they are opened');
  const pool = openPool(config.DATABASE_URL, { max: 1 });
  try {
    const applied: Record<string, number> = {};
    const versions: Record<string, number> = {};
    for (const m of modules) {
      if (!m.migrations?.length) continue;
      applied[m.name] = await migrateAt(config.DATABASE_URL, pool, m.name, m.migrations);
      versions[m.name] = m.migrations.length;
    }
    // The audit trail is every service's, kept under its own scope (core/shared/admin/postgres-audit.ts).
    applied.audit = await migrateAt(config.DATABASE_URL, pool, 'audit', AUDIT_PG_MIGRATIONS);
    versions.audit = AUDIT_PG_MIGRATIONS.length;
    // So are the replicas seen (core/shared/overview/postgres-replicas.ts).
    applied.replicas = await migrateAt(config.DATABASE_URL, pool, 'replicas', REPLICAS_PG_MIGRATIONS);
    versions.replicas = REPLICAS_PG_MIGRATIONS.length;
    return { database: postgresWhere(config.DATABASE_URL), applied, versions };
  } finally {
    await pool.end();
  }
}
