import { unreachable, type PgPool } from './pool';
import { transaction } from './transaction';

/** Any fixed number: the advisory lock that makes replicas starting together migrate one after another. */
const MIGRATION_LOCK = 0x706c6174; // "plat"

/** A database migrated by a newer version of the platform than this one: refusing is safer than guessing. */
export class DatabaseTooNew extends Error {}
/** One migration's SQL failed (nothing of its run was kept). */
export class MigrationFailed extends Error {}

/**
 * Applies a scope's migrations (one list per service, as for SQLite) past the version recorded in
 * `platform_migrations`, each with its record in one transaction, under an advisory lock held to
 * the end: replicas that start at the same moment apply each migration once, the others wait and
 * find it done. Returns how many were applied.
 */
export async function migrate(pool: PgPool, scope: string, migrations: readonly string[]): Promise<number> {
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS platform_migrations (
      scope TEXT NOT NULL, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))`);
    const { rows } = await client.query<{ v: number }>(
      'SELECT coalesce(max(version), 0)::int AS v FROM platform_migrations WHERE scope = $1',
      [scope],
    );
    const current = rows[0].v;
    if (current > migrations.length) {
      throw new DatabaseTooNew(
        `the ${scope} tables are at version ${current}, newer than this platform's ${migrations.length}: run a newer platform`,
      );
    }
    for (let i = current; i < migrations.length; i++) {
      await client.query(migrations[i]).catch((err: Error) => {
        throw new MigrationFailed(`the ${scope} migration ${i + 1} failed (nothing of this run was kept): ${err.message}`, { cause: err });
      });
      await client.query('INSERT INTO platform_migrations (scope, version) VALUES ($1, $2)', [scope, i + 1]);
    }
    return migrations.length - current;
  });
}

/** `migrate`, and when the server itself could not be used (down, no such database, refused), an error naming it (its password masked). */
export function migrateAt(url: string, pool: PgPool, scope: string, migrations: readonly string[]): Promise<number> {
  return migrate(pool, scope, migrations).catch((err: unknown) => {
    throw err instanceof DatabaseTooNew || err instanceof MigrationFailed ? err : unreachable(url, err);
  });
}
