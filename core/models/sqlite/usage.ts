import { groupCommit, statements, type Db } from '../../shared/sqlite';
import type { UsageStore } from '../ports';
import type { UsageRecord, UsageTotals } from '../usage/usage';

const TOTALS = `count(*) AS requests, coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
  coalesce(sum(words_sent), 0) AS words_sent, coalesce(sum(words_received), 0) AS words_received,
  coalesce(sum(cache = 'HIT'), 0) AS cache_hits, coalesce(sum(status >= 400), 0) AS errors, coalesce(sum(cost), 0) AS cost`;

/**
 * The usage rows in models.db, written by group commit: the records of 50 ms go in one
 * transaction, not one each. This handle's rows are written before it sums; other workers' land
 * within 50 ms of their calls.
 */
export function sqliteUsageStore(db: Db): UsageStore {
  const s = statements(db);
  const insert =
    s.run(`INSERT INTO usage (at, key_id, tenant, model, route, status, latency_ms, upstream_ms, tokens_in, tokens_out, words_sent,
    words_received, cache, guard, options, cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const write = groupCommit(
    db,
    (r: UsageRecord & { cost: number }) =>
      insert(
        r.at,
        r.keyId,
        r.tenant,
        r.model,
        r.route,
        r.status,
        r.latencyMs,
        r.upstreamMs,
        r.tokensIn,
        r.tokensOut,
        r.wordsSent,
        r.wordsReceived,
        r.cache,
        r.guard,
        JSON.stringify(r.options),
        r.cost,
      ),
    { delayMs: 50 },
  );
  const all = s.one(`SELECT ${TOTALS} FROM usage WHERE tenant = ? AND at >= ? AND at < ?`, (r) => r as unknown as UsageTotals);
  const byModel = s.many(
    `SELECT model, ${TOTALS} FROM usage WHERE tenant = ? AND at >= ? AND at < ? GROUP BY model ORDER BY model`,
    (r) => r as unknown as UsageTotals & { model: string },
  );
  return {
    record: (r, cost) => write({ ...r, cost }),
    flush: async () => write.flush(),
    totals: async (tenant, from, to) => {
      write.flush();
      return { totals: all(tenant, from, to)!, byModel: byModel(tenant, from, to) };
    },
  };
}
