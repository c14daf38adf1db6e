import { Client } from 'pg';
import { unreachable } from './pool';

/**
 * Runs `fn` while this process holds PostgreSQL's session advisory lock `key`, on a connection of
 * its own (not a pooled one: `fn` may need every connection of the pool). Other processes asking
 * for the same lock wait until `fn` has finished; ending the session releases it, also when the
 * process dies meanwhile.
 */
export async function withAdvisoryLock<T>(url: string, key: number, fn: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'platform' });
  // An error on the idle connection is reported by the query that meets it, never thrown at the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1)', [key]);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw unreachable(url, err);
  }
  try {
    return await fn();
  } finally {
    await client.end().catch(() => undefined);
  }
}
