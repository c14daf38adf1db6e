import type { AuditTrail } from '../../shared/admin/audit';
import { noMetrics, type Metrics } from '../../shared/telemetry/metrics';
import type { BudgetCrossing } from './budgets';

/**
 * What a budget's warning does (docs/spend.md): an audit event `budget.warning` (actor `system`:
 * no one acted), a count in `platform_model_budget_warnings_total`, and `log` (a log line). The
 * counters decide who crossed (budgets.ts), so it happens once per key or tenant per period,
 * whichever replica settled the call.
 */
export function budgetWarnings(deps: { audit: AuditTrail; metrics?: Metrics; log?: (w: BudgetCrossing) => void }) {
  const metrics = deps.metrics ?? noMetrics;
  const warnings = metrics.counter({
    name: 'platform_model_budget_warnings_total',
    help: 'Money budgets whose spend crossed their warning fraction (once per key or tenant per period)',
    labels: ['kind', 'tenant'],
  });
  return (w: BudgetCrossing): void => {
    warnings.inc({ kind: w.kind, tenant: metrics.tenant(w.tenant) });
    deps.log?.(w);
    void deps.audit
      .record({
        type: 'budget.warning',
        outcome: 'success',
        actor: { kind: 'system', name: 'models' },
        realm: w.tenant,
        tenant: w.tenant,
        target: { kind: w.kind === 'key' ? 'key' : 'tenant', id: w.id },
        service: 'models',
        details: {
          budget_usd: w.budget.usd,
          period: w.budget.period,
          warn_at: w.budget.warnAt,
          spent_usd: w.spent,
          period_start: new Date(w.period).toISOString(),
        },
      })
      .catch(() => undefined);
  };
}
