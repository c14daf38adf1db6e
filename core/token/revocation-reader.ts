import { existsSync } from 'node:fs';
import type { RevocationFeed } from '../shared/auth/revocation-feed';
import type { PgPool } from '../shared/postgres';
import { openDatabase } from '../shared/sqlite';
import { pgRevocations, REVOCATIONS } from './postgres/revocations';
import { tokenMigrations } from './sqlite/schema';
import { sqliteRevocations } from './sqlite/revocations';

/** A feed read from another process's token store, and how to let go of what reading it opened. */
type StoreFeed = RevocationFeed & { close(): Promise<void> };

/**
 * The revoked-sessions feed of a token store another process runs, read directly: the token
 * tables of PostgreSQL, when the token service has made them there. Undefined when they are not
 * there: the token service's endpoint is then the way.
 */
export async function pgRevocationReader(pool: PgPool): Promise<StoreFeed | undefined> {
  const { rows } = await pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [REVOCATIONS.table]);
  return rows[0]?.t ? pgRevocations(pool) : undefined;
}

/**
 * The same from a `token.db` that exists (a data directory shared with the token service, as
 * `platform serve <part>` is run on one host); undefined when there is none.
 */
export async function sqliteRevocationReader(file: string): Promise<StoreFeed | undefined> {
  if (!existsSync(file)) return undefined;
  // The token service's own migrations: the file is at its version whichever process opens it first.
  const db = openDatabase(file, tokenMigrations);
  const { feed } = sqliteRevocations(db);
  return {
    ...feed,
    close: async () => {
      db.close();
    },
  };
}
