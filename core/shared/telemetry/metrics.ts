/**
 * The platform's metrics, as a port: the domains and the faces count and time through it, and
 * know nothing of the exposition format. `prometheus.ts` is the adapter served on METRICS_PORT;
 * `noMetrics` records nothing (METRICS_PORT=0, the CLI, unit tests), so metrics turned off cost nothing.
 *
 * Label values must be bounded (docs/observability.md): names from a closed list (routes, models of
 * the catalog, modes, statuses), never raw ids; values a caller chooses (tenants, GraphQL operation
 * names) go through `bounded`, which keeps the first N distinct values and folds the rest into `other`.
 */
export type Labels = Readonly<Record<string, string | number>>;

export interface Counter {
  inc(labels: Labels, by?: number): void;
}

export interface Histogram {
  observe(labels: Labels, value: number): void;
}

export interface Gauge {
  inc(labels: Labels, by?: number): void;
  dec(labels: Labels, by?: number): void;
  set(labels: Labels, value: number): void;
}

/** How the primary combines its workers' values of a gauge (counters and histograms are summed). */
export type Aggregate = 'sum' | 'max' | 'min';

export interface MetricSpec {
  name: string;
  help: string;
  labels?: readonly string[];
}

export interface Metrics {
  counter(spec: MetricSpec): Counter;
  /** `buckets` in the unit of the name (seconds by default: latency). */
  histogram(spec: MetricSpec & { buckets?: readonly number[] }): Histogram;
  /** `collect` runs on each scrape, to set values read from elsewhere (an index's size, a pool's state). */
  gauge(spec: MetricSpec & { aggregate?: Aggregate; collect?: (g: Gauge) => void | Promise<void> }): Gauge;
  /** A label for a value callers choose: itself for the first `max` distinct values, `other` after. */
  bounded(kind: string, max: number): (value: string) => string;
  /** The tenant label (METRICS_MAX_TENANTS distinct tenants, then `other`). */
  tenant(id: string): string;
}

const nothing = { inc() {}, dec() {}, set() {}, observe() {} };

/** Records nothing. */
export const noMetrics: Metrics = {
  counter: () => nothing,
  histogram: () => nothing,
  gauge: () => nothing,
  bounded: () => (v) => v,
  tenant: (id) => id,
};

/** The first `max` distinct values are their own label; the rest share `other` (per process). */
export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}

/** Seconds since `start` (process.hrtime.bigint()). */
export const secondsSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

/** Latency buckets, in seconds: 1 ms to 2 min (model calls and streams run long). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120] as const;
