import { noMetrics, type Metrics } from '../../shared/telemetry/metrics';

/** One usage row's figures, as the metrics read them. */
export interface CallFigures {
  model: string;
  tenant: string;
  route: string;
  status: number;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  cache: string;
  guard: string;
}

/**
 * The model gateway's metrics, written from each usage row (metering.ts: every call has exactly
 * one). Labels are bounded: `model` is a catalog id, `route` one of the gateway's route names
 * (literals of rest/models and of the services that call the gateway in process), `tenant` goes
 * through `metrics.tenant`, `cache` and `status` are the row's own (HIT, MISS, BYPASS; an HTTP status).
 * Undefined when metrics are off, so a call then costs nothing here.
 */
export function callMetrics(metrics: Metrics = noMetrics): ((f: CallFigures) => void) | undefined {
  if (metrics === noMetrics) return undefined;
  const calls = metrics.counter({
    name: 'platform_model_calls_total',
    help: 'Model gateway calls (one per usage row), by catalog model, tenant, route and HTTP status',
    labels: ['model', 'tenant', 'route', 'status'],
  });
  const duration = metrics.histogram({
    name: 'platform_model_call_duration_seconds',
    help: "Model gateway calls from arrival to their last byte (the usage row's latency)",
    labels: ['model', 'route'],
  });
  const tokens = metrics.counter({
    name: 'platform_model_tokens_total',
    help: 'Tokens of model calls, by direction (input: the prompt; output: the answer)',
    labels: ['model', 'tenant', 'direction'],
  });
  const cost = metrics.counter({
    name: 'platform_model_cost_total',
    help: "Cost of model calls at the catalog's prices, in US dollars",
    labels: ['model', 'tenant'],
  });
  const cache = metrics.counter({
    name: 'platform_model_cache_total',
    help: 'Model calls by what the answer cache did (hit, semantic_hit, miss, bypass)',
    labels: ['model', 'tenant', 'result'],
  });
  const blocks = metrics.counter({
    name: 'platform_model_guardrail_blocks_total',
    help: 'Model calls the guardrails refused (prompt injection, toxicity)',
    labels: ['model', 'tenant'],
  });
  return (f) => {
    const tenant = metrics.tenant(f.tenant);
    calls.inc({ model: f.model, tenant, route: f.route, status: f.status });
    duration.observe({ model: f.model, route: f.route }, f.latencyMs / 1000);
    tokens.inc({ model: f.model, tenant, direction: 'input' }, f.tokensIn);
    tokens.inc({ model: f.model, tenant, direction: 'output' }, f.tokensOut);
    cost.inc({ model: f.model, tenant }, f.cost);
    cache.inc({ model: f.model, tenant, result: f.cache.toLowerCase() });
    // The pipeline writes `blocked:<detectors>` when the input guard refused the call (pipeline.ts).
    if (f.guard.startsWith('blocked:')) blocks.inc({ model: f.model, tenant });
  };
}
