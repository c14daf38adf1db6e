import type { Metrics } from '../../shared/telemetry/metrics';

/** What the router counts (docs/observability.md): each attempt and its outcome, each retry, each fallback. */
export function routerMetrics(m: Metrics) {
  return {
    attemptsTotal: m.counter({
      name: 'platform_model_attempts_total',
      help: 'Attempts of routed model calls, by catalog model, deployment and outcome (ok, failed, rejected: the caller’s mistake)',
      labels: ['model', 'deployment', 'outcome'],
    }),
    fallbacksTotal: m.counter({
      name: 'platform_model_fallbacks_total',
      help: 'Model calls that went on to a fallback model (fallbacks, context and content fallbacks), by model and fallback',
      labels: ['model', 'to'],
    }),
    retriesTotal: m.counter({
      name: 'platform_model_retries_total',
      help: 'Retries of one deployment of a routed model call, by catalog model and deployment',
      labels: ['model', 'deployment'],
    }),
  };
}
