import { groupCommit, statements, type Db, type Row } from '../../shared/sqlite';
import type { UsageStore } from '../ports';
import type { DailyUsage, DailyUsageQuery } from '../usage/daily';
import type { UsageRecord, UsageTotals } from '../usage/usage';

const TOTALS = `count(*) AS requests, coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
  coalesce(sum(words_sent), 0) AS words_sent, coalesce(sum(words_received), 0) AS words_received,
  coalesce(sum(cache IN ('HIT', 'SEMANTIC_HIT')), 0) AS cache_hits, coalesce(sum(status >= 400), 0) AS errors, coalesce(sum(cost), 0) AS cost`;

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
  // Per UTC day, tenant, key and model; the filters as named parameters, each NULL when not given.
  const GROUPED = `SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') AS day, tenant, key_id, model, ${TOTALS} FROM usage
    WHERE at >= @from AND at < @to AND (@tenants IS NULL OR tenant IN (SELECT value FROM json_each(@tenants)))
      AND (@key IS NULL OR key_id = @key) AND (@model IS NULL OR model = @model)
    GROUP BY day, tenant, key_id, model`;
  const AFTER = {
    asc: '(day, tenant, key_id, model) > (@day, @tenant, @keyId, @afterModel)',
    desc: 'day < @day OR (day = @day AND (tenant, key_id, model) > (@tenant, @keyId, @afterModel))',
  };
  const toDaily = (r: Row): DailyUsage => {
    const { day, tenant, key_id, model, ...totals } = r;
    return {
      day: day as string,
      tenant: tenant as string,
      keyId: key_id as string,
      model: model as string,
      ...(totals as unknown as UsageTotals),
    };
  };
  const pageOf = (desc: boolean) =>
    s.many(
      `SELECT * FROM (${GROUPED}) WHERE @day IS NULL OR ${desc ? AFTER.desc : AFTER.asc}
      ORDER BY day ${desc ? 'DESC' : ''}, tenant, key_id, model LIMIT @limit`,
      toDaily,
    );
  const pages = { asc: pageOf(false), desc: pageOf(true) };
  const count = s.one(`SELECT count(*) AS n FROM (${GROUPED})`, (r) => r.n as number);
  const daily = (q: DailyUsageQuery) => {
    const filters = {
      from: q.from,
      to: q.to,
      tenants: q.tenants ? JSON.stringify(q.tenants) : null,
      key: q.keyId ?? null,
      model: q.model ?? null,
    };
    const after = {
      day: q.after?.day ?? null,
      tenant: q.after?.tenant ?? null,
      keyId: q.after?.keyId ?? null,
      afterModel: q.after?.model ?? null,
    };
    const rows = (q.desc ? pages.desc : pages.asc)({ ...filters, ...after, limit: q.limit });
    return { rows, total: count(filters) ?? 0 };
  };

  return {
    record: (r, cost) => write({ ...r, cost }),
    flush: async () => write.flush(),
    totals: async (tenant, from, to) => {
      write.flush();
      return { totals: all(tenant, from, to)!, byModel: byModel(tenant, from, to) };
    },
    daily: async (q) => {
      write.flush();
      return daily(q);
    },
  };
}
