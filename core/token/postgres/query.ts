import type { PoolClient } from 'pg';
import { transaction as inTransaction, type PgPool } from '../../shared/postgres';
import type { Row } from './rows';

type Queryable = PgPool | PoolClient;

/**
 * Named queries (the driver prepares each once per connection) on a pool or a transaction's
 * client: the first row mapped, every row mapped, or how many rows a write touched.
 */
export function queries(db: Queryable) {
  const run = (name: string, text: string, values: unknown[]) => db.query<Row>({ name: `token.${name}`, text, values });
  return {
    async one<T>(name: string, text: string, values: unknown[], map: (r: Row) => T): Promise<T | undefined> {
      const { rows } = await run(name, text, values);
      return rows[0] ? map(rows[0]) : undefined;
    },
    async many<T>(name: string, text: string, values: unknown[], map: (r: Row) => T): Promise<T[]> {
      return (await run(name, text, values)).rows.map(map);
    },
    async count(name: string, text: string, values: unknown[]): Promise<number> {
      return (await run(name, text, values)).rowCount ?? 0;
    },
  };
}

/** Runs `work` in one transaction on one connection of the pool; rolled back if it throws or answers false. */
export const transaction = <T>(pool: PgPool, work: (q: ReturnType<typeof queries>) => Promise<T>): Promise<T> =>
  inTransaction(
    pool,
    (client) => work(queries(client)),
    (result) => result !== false,
  );
