import type { PgPool } from '../../shared/postgres';
import type { UsageStore } from '../ports';
import type { DailyUsage, DailyUsageQuery } from '../usage/daily';
import type { UsageRecord, UsageTotals } from '../usage/usage';

const TOTALS = `count(*)::int AS requests, coalesce(sum(tokens_in), 0)::float8 AS tokens_in, coalesce(sum(tokens_out), 0)::float8 AS tokens_out,
  coalesce(sum(words_sent), 0)::float8 AS words_sent, coalesce(sum(words_received), 0)::float8 AS words_received,
  count(*) FILTER (WHERE cache IN ('HIT', 'SEMANTIC_HIT'))::int AS cache_hits, count(*) FILTER (WHERE status >= 400)::int AS errors, coalesce(sum(cost), 0)::float8 AS cost`;

/** The columns written, each from its array: one statement whatever the batch's size. */
const INSERT = `INSERT INTO models_usage (at, key_id, tenant, model, route, status, latency_ms, upstream_ms, tokens_in, tokens_out, words_sent,
  words_received, cache, guard, options, cost)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::float8[], $8::float8[], $9::bigint[],
    $10::bigint[], $11::bigint[], $12::bigint[], $13::text[], $14::text[], $15::jsonb[], $16::float8[])`;

/** Per UTC day, tenant, key and model; $1-$5: from, to, tenants (NULL: all), key, model. */
const GROUPED = `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, tenant, key_id, model, ${TOTALS} FROM models_usage
  WHERE at >= $1 AND at < $2 AND ($3::text[] IS NULL OR tenant = ANY($3)) AND ($4::text IS NULL OR key_id = $4) AND ($5::text IS NULL OR model = $5)
  GROUP BY 1, 2, 3, 4`;
/** $6-$9: the previous page's last row (NULL: the first page); byte order, as SQLite compares. */
const AFTER = {
  asc: `(day, tenant COLLATE "C", key_id COLLATE "C", model COLLATE "C") > ($6::text, $7::text, $8::text, $9::text)`,
  desc: `day < $6::text OR (day = $6::text AND (tenant COLLATE "C", key_id COLLATE "C", model COLLATE "C") > ($7::text, $8::text, $9::text))`,
};
const dailySql = (desc: boolean) => `SELECT * FROM (${GROUPED}) g WHERE $6::text IS NULL OR ${desc ? AFTER.desc : AFTER.asc}
  ORDER BY day ${desc ? 'DESC' : ''}, tenant COLLATE "C", key_id COLLATE "C", model COLLATE "C" LIMIT $10`;

type DailyRow = Omit<DailyUsage, 'keyId'> & { key_id: string };

type Pending = { r: UsageRecord; cost: number; resolve(): void; reject(err: unknown): void };

/**
 * The usage rows in PostgreSQL, by group commit as in models.db: the records of 50 ms go in one
 * statement. `record` resolves once its row is kept; this handle's rows are written before it sums,
 * other replicas' within 50 ms of their calls.
 */
export function pgUsageStore(pool: PgPool, opts: { delayMs?: number } = {}): UsageStore {
  let pending: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async (batch: Pending[]) => {
    const col = <T>(f: (p: Pending) => T) => batch.map(f);
    try {
      await pool.query({
        name: 'models.usage.insert',
        text: INSERT,
        values: [
          col((p) => new Date(p.r.at)),
          col((p) => p.r.keyId),
          col((p) => p.r.tenant),
          col((p) => p.r.model),
          col((p) => p.r.route),
          col((p) => p.r.status),
          col((p) => p.r.latencyMs),
          col((p) => p.r.upstreamMs),
          col((p) => p.r.tokensIn),
          col((p) => p.r.tokensOut),
          col((p) => p.r.wordsSent),
          col((p) => p.r.wordsReceived),
          col((p) => p.r.cache),
          col((p) => p.r.guard),
          col((p) => JSON.stringify(p.r.options)),
          col((p) => p.cost),
        ],
      });
      batch.forEach((p) => p.resolve());
    } catch (err) {
      batch.forEach((p) => p.reject(err));
    }
  };
  /** Sends what is queued; resolves once everything queued before the call is written (or refused). */
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length) {
      const batch = pending;
      pending = [];
      writing = writing.then(() => write(batch));
    }
    return writing;
  };

  const totals = async (tenant: string, from: number, to: number) => {
    const values = [tenant, new Date(from), new Date(to)];
    const [all, byModel] = await Promise.all([
      pool.query<UsageTotals>({
        name: 'models.usage.totals',
        text: `SELECT ${TOTALS} FROM models_usage WHERE tenant = $1 AND at >= $2 AND at < $3`,
        values,
      }),
      pool.query<UsageTotals & { model: string }>({
        name: 'models.usage.by-model',
        text: `SELECT model, ${TOTALS} FROM models_usage WHERE tenant = $1 AND at >= $2 AND at < $3 GROUP BY model ORDER BY model COLLATE "C"`,
        values,
      }),
    ]);
    return { totals: all.rows[0], byModel: byModel.rows };
  };

  const daily = async (q: DailyUsageQuery) => {
    const filters = [new Date(q.from), new Date(q.to), q.tenants ? [...q.tenants] : null, q.keyId ?? null, q.model ?? null];
    const after = [q.after?.day ?? null, q.after?.tenant ?? null, q.after?.keyId ?? null, q.after?.model ?? null];
    const [page, count] = await Promise.all([
      pool.query<DailyRow>({
        name: q.desc ? 'models.usage.daily-desc' : 'models.usage.daily',
        text: dailySql(q.desc),
        values: [...filters, ...after, q.limit],
      }),
      pool.query<{ n: number }>({
        name: 'models.usage.daily-count',
        text: `SELECT count(*)::int AS n FROM (${GROUPED}) g`,
        values: filters,
      }),
    ]);
    return { rows: page.rows.map(({ key_id, ...r }) => ({ ...r, keyId: key_id })), total: count.rows[0].n };
  };

  return {
    record: (r, cost) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ r, cost, resolve, reject });
        timer ??= setTimeout(() => void flush(), opts.delayMs ?? 50).unref();
      }),
    flush,
    totals: async (tenant, from, to) => {
      await flush();
      return totals(tenant, from, to);
    },
    daily: async (q) => {
      await flush();
      return daily(q);
    },
  };
}
