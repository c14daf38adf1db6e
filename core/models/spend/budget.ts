/**
 * Budgets in money (docs/spend.md): a key's or a tenant's most spend per UTC day or calendar month
 * (UTC), and the fraction of it whose crossing writes a `budget.warning` event.
 */
export interface MoneyBudget {
  /** US dollars per period. */
  usd: number;
  period: 'daily' | 'monthly';
  /** The fraction of `usd` whose first crossing in a period is warned of (0.8 when not given). */
  warnAt: number;
}

export const BUDGET_PERIODS = ['daily', 'monthly'] as const;
export const DEFAULT_WARN_AT = 0.8;

/** The start of the period `now` is in (epoch ms, UTC): the counters' bucket. */
export function periodStart(period: MoneyBudget['period'], now: number): number {
  const d = new Date(now);
  return period === 'daily'
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The end of that period (the next one's start): a refusal's Retry-After. */
export function periodEnd(period: MoneyBudget['period'], now: number): number {
  const d = new Date(periodStart(period, now));
  return period === 'daily'
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** A tenant's budget as the admin API keeps it (`/admin/api/v1/tenant-budgets/{tenant}`). */
export interface TenantBudget extends MoneyBudget {
  tenant: string;
  updatedAt: Date;
  updatedBy: string;
}
