import type { PgPool } from '../../shared/postgres';
import type { UsageStore } from '../ports';
import type { UsageRecord, UsageTotals } from '../usage/usage';

const TOTALS = `count(*)::int AS requests, coalesce(sum(tokens_in), 0)::float8 AS tokens_in, coalesce(sum(tokens_out), 0)::float8 AS tokens_out,
  coalesce(sum(words_sent), 0)::float8 AS words_sent, coalesce(sum(words_received), 0)::float8 AS words_received,
  count(*) FILTER (WHERE cache = 'HIT')::int AS cache_hits, count(*) FILTER (WHERE status >= 400)::int AS errors, coalesce(sum(cost), 0)::float8 AS cost`;

/** The columns written, each from its array: one statement whatever the batch's size. */
const INSERT = `INSERT INTO models_usage (at, key_id, tenant, model, route, status, latency_ms, upstream_ms, tokens_in, tokens_out, words_sent,
  words_received, cache, guard, options, cost)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::float8[], $8::float8[], $9::bigint[],
    $10::bigint[], $11::bigint[], $12::bigint[], $13::text[], $14::text[], $15::jsonb[], $16::float8[])`;

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
  };
}
