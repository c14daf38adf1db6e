import type { PgPool } from '../../shared/postgres';
import type { SpendCounters } from '../ports';

/**
 * Spend and reservations in PostgreSQL (`models_spend`), exact across replicas: a reservation is
 * one INSERT … ON CONFLICT DO UPDATE … WHERE, which locks the row and checks the budget against
 * its latest version, so of two replicas reserving the last dollars at once, one gets nothing.
 * BIGINT nano-dollars arrive as text (far below 2^53).
 */
export function pgSpendCounters(pool: PgPool): SpendCounters {
  return {
    async reserve(scope, period, amount, limit) {
      const { rows } = await pool.query({
        name: 'models.spend.reserve',
        text: `INSERT INTO models_spend AS s (scope, period, spent, reserved) SELECT $1, $2, 0, $3 WHERE $3::bigint <= $4::bigint
          ON CONFLICT (scope, period) DO UPDATE SET reserved = s.reserved + excluded.reserved
          WHERE s.spent + s.reserved + excluded.reserved <= $4::bigint
          RETURNING 1`,
        values: [scope, period, amount, limit],
      });
      return rows.length === 1;
    },
    async settle(scope, period, reserved, cost) {
      const { rows } = await pool.query<{ spent: string }>({
        name: 'models.spend.settle',
        text: `INSERT INTO models_spend AS s (scope, period, spent, reserved) VALUES ($1, $2, $3, 0)
          ON CONFLICT (scope, period) DO UPDATE SET spent = s.spent + excluded.spent, reserved = greatest(s.reserved - $4::bigint, 0)
          RETURNING spent`,
        values: [scope, period, cost, reserved],
      });
      const after = Number(rows[0].spent);
      return { before: after - cost, after };
    },
    async read(scope, period) {
      const { rows } = await pool.query<{ spent: string; reserved: string }>({
        name: 'models.spend.read',
        text: 'SELECT spent, reserved FROM models_spend WHERE scope = $1 AND period = $2',
        values: [scope, period],
      });
      return rows[0] ? { spent: Number(rows[0].spent), reserved: Number(rows[0].reserved) } : { spent: 0, reserved: 0 };
    },
  };
}
