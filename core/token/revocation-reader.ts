import { existsSync } from 'node:fs';
import type { RevocationFeed } from '../shared/auth/revocation-feed';
import type { PgPool } from '../shared/postgres';
import { openDatabase } from '../shared/sqlite';
import { pgRevocations, REVOCATIONS } from './postgres/revocations';
import { tokenMigrations } from './sqlite/schema';
import { sqliteRevocations } from './sqlite/revocations';

/**
 * The revoked-sessions feed of a token store another process runs, read directly: the token
 * tables of PostgreSQL (when the token service has made them there), or a `token.db` that exists
 * (a data directory shared with the token service, as `platform serve <part>` is run on one host).
 * Undefined when neither is there: the token service's endpoint is then the way.
 */
export async function openRevocationReader(opts: { postgres?: PgPool; file?: string }): Promise<(RevocationFeed & { close(): Promise<void> }) | undefined> {
  if (opts.postgres) {
    const { rows } = await opts.postgres.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [REVOCATIONS.table]);
    return rows[0]?.t ? pgRevocations(opts.postgres) : undefined;
  }
  if (!opts.file || !existsSync(opts.file)) return undefined;
  // The token service's own migrations: the file is at its version whichever process opens it first.
  const db = openDatabase(opts.file, tokenMigrations);
  const { feed } = sqliteRevocations(db);
  return {
    ...feed,
    close: async () => {
      db.close();
    },
  };
}
