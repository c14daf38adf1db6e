import { BadRequest } from '../../shared/errors';
import { BUDGET_PERIODS, DEFAULT_WARN_AT, type MoneyBudget } from './budget';

/** A money budget as the admin API and the CLI take it: `{ usd, period: daily|monthly, warn_at }` (docs/spend.md). */
export interface BudgetInput {
  usd: number;
  /** Default `monthly`. */
  period?: string;
  /** The fraction whose crossing is warned of; default 0.8. */
  warn_at?: number;
}

/** A budget as the admin faces show it. */
export interface BudgetView {
  usd: number;
  period: MoneyBudget['period'];
  warn_at: number;
}

const MAX_USD = 1e9;

/** Checks a budget's input (400 naming the field): a positive amount of dollars, a known period, a fraction in (0, 1]. */
export function budgetOf(input: BudgetInput, field = 'budget'): MoneyBudget {
  const { usd, period = 'monthly', warn_at: warnAt = DEFAULT_WARN_AT } = input;
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd <= 0 || usd > MAX_USD)
    throw new BadRequest(`${field}.usd: US dollars, more than 0 and at most ${MAX_USD}`);
  if (!(BUDGET_PERIODS as readonly string[]).includes(period)) throw new BadRequest(`${field}.period: daily or monthly`);
  if (typeof warnAt !== 'number' || !Number.isFinite(warnAt) || warnAt <= 0 || warnAt > 1)
    throw new BadRequest(`${field}.warn_at: a fraction of the budget, more than 0 and at most 1`);
  return { usd, period: period as MoneyBudget['period'], warnAt };
}

export const budgetView = (b: MoneyBudget): BudgetView => ({ usd: b.usd, period: b.period, warn_at: b.warnAt });
