import type { PgPool } from '../../shared/postgres';
import type { FailureCounter, FailureWindow } from '../ports';
import { queries } from './query';

const window = (r: Record<string, unknown>): FailureWindow => ({ count: r.count as number, resetAt: (r.reset_at as Date).getTime() });

/**
 * Failed authentications per key in `token_failures` (when no Redis is configured):
 * each step is one statement, so parallel attempts on any replicas never reserve more places than
 * the limit (an INSERT … ON CONFLICT DO UPDATE locks the row and re-reads it before its WHERE).
 */
export function pgFailureCounter(pool: PgPool): FailureCounter {
  const q = queries(pool);
  const current = (key: string) => q.one('failures.get', 'SELECT count, reset_at FROM token_failures WHERE key = $1', [key], window);
  return {
    async count(key, now) {
      const w = await current(key);
      return w && w.resetAt > now ? w : { count: 0, resetAt: now };
    },
    async add(key, windowMs, now) {
      const w = await q.one(
        'failures.add',
        `INSERT INTO token_failures AS f (key, count, reset_at) VALUES ($1, 1, $2)
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN f.reset_at <= $3 THEN 1 ELSE f.count + 1 END,
          reset_at = CASE WHEN f.reset_at <= $3 THEN excluded.reset_at ELSE f.reset_at END
        RETURNING count, reset_at`,
        [key, new Date(now + windowMs), new Date(now)],
        window,
      );
      return w?.count ?? 0;
    },
    async reserve(key, limit, windowMs, now) {
      const taken = await q.one(
        'failures.reserve',
        `INSERT INTO token_failures AS f (key, count, reset_at) VALUES ($1, 1, $2)
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN f.reset_at <= $3 THEN 1 ELSE f.count + 1 END,
          reset_at = CASE WHEN f.reset_at <= $3 THEN excluded.reset_at ELSE f.reset_at END
        WHERE f.reset_at <= $3 OR f.count < $4
        RETURNING count, reset_at`,
        [key, new Date(now + windowMs), new Date(now), limit],
        window,
      );
      if (taken) return { ...taken, reserved: true };
      return { ...((await current(key)) ?? { count: limit, resetAt: now + windowMs }), reserved: false };
    },
    async release(key, resetAt) {
      await q.count('failures.release', 'UPDATE token_failures SET count = count - 1 WHERE key = $1 AND reset_at = $2 AND count > 0', [
        key,
        new Date(resetAt),
      ]);
    },
    async forget(key) {
      await q.count('failures.forget', 'DELETE FROM token_failures WHERE key = $1', [key]);
    },
    prune: (now) => q.count('failures.prune', 'DELETE FROM token_failures WHERE reset_at <= $1', [new Date(now)]),
  };
}
