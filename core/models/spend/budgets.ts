import type { Clock } from '../../shared/clock';
import { RateLimited } from '../../shared/errors';
import type { ApiKey } from '../keys/api-key';
import type { SpendCounters, TenantBudgetStore } from '../ports';
import { periodEnd, periodStart, type MoneyBudget } from './budget';
import { fromNanos, toNanos } from './cost';

/** One budget a call holds a reservation under. */
export interface Held {
  /** `key` or `tenant`, and which one. */
  kind: 'key' | 'tenant';
  id: string;
  tenant: string;
  scope: string;
  period: number;
  budget: MoneyBudget;
  /** Nano-dollars reserved (0 when the store failed at admission: nothing to give back). */
  amount: number;
}

/** What a call holds from admission to its settle. */
export interface Hold {
  held: Held[];
}

/** A budget whose spend crossed its warning fraction (first settle in the period to do so). */
export interface BudgetCrossing {
  kind: Held['kind'];
  id: string;
  tenant: string;
  budget: MoneyBudget;
  /** US dollars spent in the period after the settle. */
  spent: number;
  period: number;
}

export interface BudgetsDeps {
  clock: Clock;
  counters: SpendCounters;
  tenants: Pick<TenantBudgetStore, 'get'>;
  /** Told of the first crossing of a budget's warning fraction in its period (an audit event, a log line, a metric). */
  onWarning?: (w: BudgetCrossing) => void;
  /** Told when the counters or the budgets could not be read or written (the call is admitted). */
  onError?: (err: unknown) => void;
}

/**
 * Budgets in money (docs/spend.md), exact across processes and replicas: at admission a call
 * reserves its most possible cost under its key's budget and its tenant's, atomically refused
 * when spent + reserved + this would pass the budget (429 `insufficient_quota`, Retry-After the
 * period's end); when it ends, the reservation is replaced by the real cost (a failed call's is 0).
 * So however many calls run at once, the spend never passes the budget.
 *
 * When the store cannot be reached, the call is admitted and the failure reported (fail open, as
 * the key's limits do: an outage of the counter stops no one's calls; usage still has each cost).
 */
export function moneyBudgets(deps: BudgetsDeps) {
  const { clock, counters } = deps;
  const failedOpen = (err: unknown) => {
    deps.onError?.(err);
    return undefined;
  };
  const refusal = (h: Omit<Held, 'amount'>, now: number) =>
    new RateLimited(
      `budget_exceeded: this ${h.kind === 'key' ? 'key' : 'tenant'} has reached its budget of ${h.budget.usd} USD for the ${h.budget.period === 'daily' ? 'day' : 'month'}.`,
      Math.max(1, Math.ceil((periodEnd(h.budget.period, now) - now) / 1000)),
      { code: 'insufficient_quota' },
    );

  /** Gives back what is held (a refusal by a later budget, a call that failed). */
  const release = (held: readonly Held[]) => {
    for (const h of held) if (h.amount > 0) counters.settle(h.scope, h.period, h.amount, 0).catch(failedOpen);
  };

  return {
    /** Reserves `maxUsd` under the key's budget and its tenant's; throws RateLimited when one has no room. */
    async reserve(key: ApiKey, maxUsd: number): Promise<Hold | undefined> {
      const tenantBudget = await deps.tenants.get(key.tenant).catch(failedOpen);
      if (!key.budget && !tenantBudget) return undefined;
      const now = clock.now();
      const wanted: Omit<Held, 'amount'>[] = [];
      const scoped = (kind: Held['kind'], id: string, budget: MoneyBudget) => {
        const period = periodStart(budget.period, now);
        wanted.push({ kind, id, tenant: key.tenant, scope: `${kind}:${id}`, period, budget });
      };
      if (key.budget) scoped('key', key.id, key.budget);
      if (tenantBudget) scoped('tenant', key.tenant, tenantBudget);
      const amount = toNanos(maxUsd);
      const held: Held[] = [];
      for (const w of wanted) {
        const ok = await counters.reserve(w.scope, w.period, amount, toNanos(w.budget.usd)).catch(failedOpen);
        if (ok === false) {
          release(held);
          throw refusal(w, now);
        }
        held.push({ ...w, amount: ok === undefined ? 0 : amount });
      }
      return { held };
    },
    /** Replaces the reservations by the call's real cost; tells `onWarning` of a warning fraction crossed. */
    settle(hold: Hold | undefined, costUsd: number): void {
      if (!hold) return;
      const cost = toNanos(costUsd);
      for (const h of hold.held) {
        void counters.settle(h.scope, h.period, h.amount, cost).then((r) => {
          const line = toNanos(h.budget.usd * h.budget.warnAt);
          if (r.before < line && r.after >= line)
            deps.onWarning?.({ kind: h.kind, id: h.id, tenant: h.tenant, budget: h.budget, spent: fromNanos(r.after), period: h.period });
        }, failedOpen);
      }
    },
    /** What a budget has spent and holds reserved in its current period, in US dollars. */
    async spent(
      kind: Held['kind'],
      id: string,
      budget: MoneyBudget,
    ): Promise<{ spent: number; reserved: number; periodStart: number; periodEnd: number }> {
      const now = clock.now();
      const r = await counters.read(`${kind}:${id}`, periodStart(budget.period, now));
      return {
        spent: fromNanos(r.spent),
        reserved: fromNanos(r.reserved),
        periodStart: periodStart(budget.period, now),
        periodEnd: periodEnd(budget.period, now),
      };
    },
  };
}

export type MoneyBudgets = ReturnType<typeof moneyBudgets>;
