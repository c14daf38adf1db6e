import { statements, type Db } from '../../shared/sqlite';
import type { Admission, LimitCounters } from '../ports';

/**
 * The keys' counts in models.db (`rate_requests`, `token_spend`), shared by every worker. A request
 * is taken in one IMMEDIATE transaction (the write lock is held from the count to the insert), so
 * parallel requests on any number of processes never admit more than the limit. Each request is a
 * row (a key holds at most its rpm of them) and their number per key is kept by triggers, so a
 * take costs the same whatever the rpm.
 */
export function sqliteLimitCounters(db: Db): LimitCounters & { take(id: string, limit: number, windowMs: number, now: number): Admission } {
  const s = statements(db);
  const expire = s.run('DELETE FROM rate_requests WHERE key_id = ? AND at <= ?');
  const count = s.one('SELECT n FROM rate_counts WHERE key_id = ?', (r) => r.n as number);
  // The request whose leaving makes room: the (n - limit + 1)th oldest.
  const leaving = s.one('SELECT at FROM rate_requests WHERE key_id = ? ORDER BY at LIMIT 1 OFFSET ?', (r) => r.at as number);
  const insert = s.run('INSERT INTO rate_requests (key_id, at) VALUES (?, ?)');
  const pruneAll = s.run('DELETE FROM rate_requests WHERE at <= ?');
  const spent = s.one('SELECT tokens FROM token_spend WHERE key_id = ? AND period = ?', (r) => r.tokens as number);
  const spend = s.run(`INSERT INTO token_spend (key_id, period, tokens) VALUES (?, ?, ?)
    ON CONFLICT (key_id, period) DO UPDATE SET tokens = tokens + excluded.tokens`);

  const takeOnce = (id: string, limit: number, windowMs: number, now: number): Admission => {
    expire(id, now - windowMs);
    const n = count(id) ?? 0;
    if (n < limit) {
      insert(id, now);
      return { admitted: true };
    }
    return { admitted: false, retryAt: (leaving(id, n - limit) ?? now) + windowMs };
  };
  const takeTx = db.transaction(takeOnce);
  const take = (id: string, limit: number, windowMs: number, now: number) => takeTx.immediate(id, limit, windowMs, now);

  return {
    take,
    takeRequest: async (id, limit, windowMs, now) => take(id, limit, windowMs, now),
    tokensSpent: async (id, period) => spent(id, period) ?? 0,
    spendTokens: async (id, period, tokens) => void spend(id, period, tokens),
    pruneRequests: async (before) => pruneAll(before),
  };
}
