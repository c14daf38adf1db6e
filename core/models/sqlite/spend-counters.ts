import { statements, type Db } from '../../shared/sqlite';
import type { SpendCounters } from '../ports';

/**
 * Spend and reservations in models.db (`spend_counters`), shared by every worker of a machine. A
 * reservation is read and taken in one IMMEDIATE transaction (the write lock is held from the
 * read to the write), so of parallel calls on any number of processes, never two take the same
 * last dollars.
 */
export function sqliteSpendCounters(
  db: Db,
): SpendCounters & { reserveNow(scope: string, period: number, amount: number, limit: number): boolean } {
  const s = statements(db);
  const row = s.one('SELECT spent, reserved FROM spend_counters WHERE scope = ? AND period = ?', (r) => ({
    spent: r.spent as number,
    reserved: r.reserved as number,
  }));
  const add = s.run(`INSERT INTO spend_counters (scope, period, spent, reserved) VALUES (?, ?, ?, ?)
    ON CONFLICT (scope, period) DO UPDATE SET spent = spent + excluded.spent, reserved = max(reserved + excluded.reserved, 0)`);
  const reserveTx = db.transaction((scope: string, period: number, amount: number, limit: number) => {
    const now = row(scope, period) ?? { spent: 0, reserved: 0 };
    if (now.spent + now.reserved + amount > limit) return false;
    add(scope, period, 0, amount);
    return true;
  });
  const settleTx = db.transaction((scope: string, period: number, reserved: number, cost: number) => {
    const before = row(scope, period)?.spent ?? 0;
    add(scope, period, cost, -reserved);
    return { before, after: before + cost };
  });
  const reserveNow = (scope: string, period: number, amount: number, limit: number): boolean =>
    reserveTx.immediate(scope, period, amount, limit);
  return {
    reserveNow,
    reserve: async (scope, period, amount, limit) => reserveNow(scope, period, amount, limit),
    settle: async (scope, period, reserved, cost) => settleTx.immediate(scope, period, reserved, cost),
    read: async (scope, period) => row(scope, period) ?? { spent: 0, reserved: 0 },
  };
}
