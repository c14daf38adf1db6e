import { Pool } from 'pg';

export type PgPool = Pool;

export interface PoolOptions {
  /** Connections kept per process (each replica's workers have their own). */
  max?: number;
  /** An idle connection failed (the server restarted or went away): the next query opens a new one. */
  onIdleError?: (err: Error) => void;
}

/** The URL with its password masked, fit for messages and logs. */
export function postgresWhere(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured DATABASE_URL';
  }
}

/** The first contact with the server failed: says which server (without its password) and why. */
export const unreachable = (url: string, err: unknown) =>
  new Error(`PostgreSQL at ${postgresWhere(url)} cannot be used: ${(err as Error)?.message ?? String(err)}`, { cause: err });

/**
 * A connection pool on `DATABASE_URL`. Queries with parameters are sent as prepared statements by
 * the driver's extended protocol; a pooled connection the server dropped is replaced on next use,
 * and an error on an idle one is reported, never thrown (it would end the process).
 */
export function openPool(url: string, opts: PoolOptions = {}): PgPool {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5000,
    application_name: 'platform',
  });
  pool.on('error', (err) => opts.onIdleError?.(err));
  return pool;
}
