import type { PoolClient } from 'pg';
import type { PgPool } from './pool';

/**
 * Runs `work` in one transaction on one connection of the pool: committed when it returns (unless
 * `keep` says no, then rolled back), rolled back when it throws. While the connection is checked
 * out, its death (the server restarting) is also emitted as 'error' on the client, which with no
 * listener would end the process: it is caught here (the query in flight fails by itself) and the
 * connection is dropped from the pool rather than handed to the next caller.
 */
export async function transaction<T>(
  pool: PgPool,
  work: (client: PoolClient) => Promise<T>,
  keep: (result: T) => boolean = () => true,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const died = (err: Error) => {
    broken ??= err;
  };
  client.on('error', died);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(keep(result) ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (err) {
    if (!broken) await client.query('ROLLBACK').catch(died);
    throw err;
  } finally {
    client.off('error', died);
    client.release(broken);
  }
}
