/**
 * Usage records (DECISIONS): one per call, kept by the usage store (ports.ts), and their totals per
 * tenant for `GET /proxy/api/v1/usage`.
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

/** A set of calls summed up: `cache_hits` counts the calls answered from the cache (`HIT` and `SEMANTIC_HIT`), `errors` those whose status is 400 or more. */
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

/** A tenant's usage between two instants: in all, and per model (ordered by model id). */
export interface UsageReport {
  totals: UsageTotals;
  byModel: (UsageTotals & { model: string })[];
}

/** Runs of non-space characters, counted without building them. */
export function wordCount(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space =
      c === 32 ||
      (c >= 9 && c <= 13) ||
      c === 160 ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0xfeff ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x1680 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}
