import { groupCommit, statements, type Db } from '../shared/sqlite';
import type { CatalogModel } from './catalog';

/**
 * Usage records (DECISIONS): one row per call, written by group commit (one transaction per turn of
 * the event loop), and their totals per tenant for `GET /proxy/api/v1/usage`.
 */
export interface UsageRecord {
  at: number;
  keyId: string;
  tenant: string;
  model: string;
  route: string;
  status: number;
  latencyMs: number;
  upstreamMs: number | null;
  tokensIn: number;
  tokensOut: number;
  wordsSent: number;
  wordsReceived: number;
  cache: string;
  guard: string;
  /** The tenant-profile options sent with the key (Bot_Id, Query_Id, userid, toxicity, sentiment, is_system, ...). */
  options: Record<string, unknown>;
}

export const costOf = (m: Pick<CatalogModel, 'price'>, tokensIn: number, tokensOut: number) =>
  (tokensIn * m.price.inputPerMillion + tokensOut * m.price.outputPerMillion) / 1e6;

/** Runs of non-space characters, counted without building them. */
export function wordCount(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x2028 || c === 0x2029 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x202f || c === 0x205f || c === 0x3000;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

export interface UsageTotals {
  requests: number;
  tokens_in: number;
  tokens_out: number;
  words_sent: number;
  words_received: number;
  cache_hits: number;
  errors: number;
  cost: number;
}

export function usageStore(db: Db) {
  const s = statements(db);
  const insert = s.run(`INSERT INTO usage (at, key_id, tenant, model, route, status, latency_ms, upstream_ms, tokens_in, tokens_out, words_sent,
    words_received, cache, guard, options, cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const write = groupCommit(db, (r: UsageRecord & { cost: number }) => insert(r.at, r.keyId, r.tenant, r.model, r.route, r.status, r.latencyMs,
    r.upstreamMs, r.tokensIn, r.tokensOut, r.wordsSent, r.wordsReceived, r.cache, r.guard, JSON.stringify(r.options), r.cost), { delayMs: 50 });
  const totals = `count(*) AS requests, coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
    coalesce(sum(words_sent), 0) AS words_sent, coalesce(sum(words_received), 0) AS words_received,
    coalesce(sum(cache = 'HIT'), 0) AS cache_hits, coalesce(sum(status >= 400), 0) AS errors, coalesce(sum(cost), 0) AS cost`;
  const all = s.one(`SELECT ${totals} FROM usage WHERE tenant = ? AND at >= ? AND at < ?`, (r) => r as unknown as UsageTotals);
  const byModel = s.many(`SELECT model, ${totals} FROM usage WHERE tenant = ? AND at >= ? AND at < ? GROUP BY model ORDER BY model`,
    (r) => r as unknown as UsageTotals & { model: string });
  return {
    record: (r: UsageRecord, cost: number) => write({ ...r, cost }),
    /** Writes the records still queued (before the database closes). */
    flush: () => write.flush(),
    /** This process's rows are written first; other workers' land within 50 ms of their calls. */
    totals: (tenant: string, from: number, to: number) => {
      write.flush();
      return { totals: all(tenant, from, to)!, byModel: byModel(tenant, from, to) };
    },
  };
}

export type UsageStore = ReturnType<typeof usageStore>;
