import type { PoolClient } from 'pg';
import { transaction, type PgPool } from '../../shared/postgres';
import { wordsOf } from '../../shared/text/words';

/** Where a query runs: the pool (one statement, its own transaction) or a client inside a transaction. */
export type Db = PgPool | PoolClient;

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can): a caller's NUL becomes U+FFFD, one UTF-16
 * unit as well, so passage offsets stay right. Applied to every text parameter, so filters compare
 * what was stored.
 */
const clean = (v: unknown): unknown => {
  if (typeof v === 'string') return v.includes('\u0000') ? v.replaceAll('\u0000', '\uFFFD') : v;
  if (Array.isArray(v)) return v.map(clean);
  return v;
};

/**
 * Rows of a statement. Fixed statements are named, so the driver prepares each once per
 * connection; statements whose text varies (a selection's WHERE clause) go unnamed.
 */
export async function rows<T>(db: Db, name: string | undefined, text: string, values: readonly unknown[] = []): Promise<T[]> {
  const result = await db.query({ ...(name ? { name: `search.${name}` } : {}), text, values: values.map(clean) });
  return result.rows as T[];
}

/** Runs `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
export const inTransaction = <T>(pool: PgPool, work: (client: PoolClient) => Promise<T>): Promise<T> => transaction(pool, work);

/** A text as the full-text index takes it: its words (letters and digits, lower-cased) as the search service sees them, space-separated. */
export const ftsWords = (text: string): string => wordsOf(text).join(' ');

/** BIGINT columns arrive as text; ids and counts here stay far below 2^53. */
export const num = (v: unknown): number => Number(v);
