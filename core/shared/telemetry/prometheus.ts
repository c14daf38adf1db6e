import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { boundedLabel, LATENCY_BUCKETS, type Metrics, type MetricSpec } from './metrics';

export interface PrometheusMetrics extends Metrics {
  /** What METRICS_PORT serves (this process's figures; the primary of several workers aggregates them). */
  readonly registry: Registry;
}

/**
 * The Metrics port over prom-client, into a registry of its own (several platforms in one process,
 * as tests start them, do not collide): Node's own figures (event-loop lag, heap, GC, handles)
 * plus whatever the services declare. Declaring a metric twice returns the first.
 */
export function prometheusMetrics(opts: { maxTenants: number }): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  const base = (s: MetricSpec) => ({ name: s.name, help: s.help, labelNames: [...(s.labels ?? [])], registers: [registry] });
  const bounds = new Map<string, (v: string) => string>();
  const bounded = (kind: string, max: number) => {
    let b = bounds.get(kind);
    if (!b) bounds.set(kind, (b = boundedLabel(max)));
    return b;
  };
  const tenants = opts.maxTenants > 0 ? bounded('tenant', opts.maxTenants) : () => 'all';
  return {
    registry,
    counter: (s) => existing<Counter>(s.name) ?? new Counter(base(s)),
    histogram: (s) => existing<Histogram>(s.name) ?? new Histogram({ ...base(s), buckets: [...(s.buckets ?? LATENCY_BUCKETS)] }),
    gauge: (s) =>
      existing<Gauge>(s.name) ??
      new Gauge({
        ...base(s),
        aggregator: s.aggregate ?? 'sum',
        ...(s.collect
          ? {
              collect(this: Gauge) {
                return s.collect!(this);
              },
            }
          : {}),
      }),
    bounded,
    tenant: tenants,
  };
}
