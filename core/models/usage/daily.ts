import type { UsageTotals } from './usage';

/**
 * Usage per UTC day, tenant, key and model (the admin API's `GET /usage`): grouped and paged in the
 * store's SQL, so a long range over many keys never comes into memory whole. Rows are ordered by
 * day (ascending or descending), then tenant, key and model (ascending, byte order), a total order
 * whose position (`DailyUsageKey`) continues a page on any replica.
 */
export interface DailyUsageKey {
  /** YYYY-MM-DD (UTC). */
  day: string;
  tenant: string;
  keyId: string;
  model: string;
}

export type DailyUsage = DailyUsageKey & UsageTotals;

export interface DailyUsageQuery {
  /** Only these tenants' calls; undefined: every tenant's. */
  tenants?: readonly string[];
  keyId?: string;
  model?: string;
  /** Epoch milliseconds: calls at or after `from` and before `to`. */
  from: number;
  to: number;
  /** Newest day first. */
  desc: boolean;
  /** The last row of the previous page. */
  after?: DailyUsageKey;
  limit: number;
}

export interface DailyUsagePage {
  rows: DailyUsage[];
  /** Rows matching the query over every page. */
  total: number;
}

export const DAY_MS = 86_400_000;
