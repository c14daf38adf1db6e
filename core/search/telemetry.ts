import { noMetrics, secondsSince, type Metrics } from '../shared/telemetry/metrics';
import { inSpan, type Trace } from '../shared/telemetry/tracing';
import type { SearchMode } from './types';

/**
 * How a query is named in metrics and spans: a search's mode (`fulltext`, `semantic`, `hybrid`,
 * `basic`), or a passage search's (`passages_hybrid`, `passages_semantic`: the chunk search that
 * chat prompts, v1 `search`/`search_lite` and v2 `chunk/search` run). A closed set, whatever the caller sent.
 */
export type QueryMode = SearchMode | 'passages_hybrid' | 'passages_semantic';

/**
 * Runs a query in its span (`search <mode>`, under the call's trace) and counts it: `platform_search_queries_total{mode,outcome}`
 * and `platform_search_query_duration_seconds{mode}`. Only queries the caller may run are counted
 * (the role check comes first); a query that throws is an `error`.
 */
export function queryTelemetry(metrics: Metrics = noMetrics) {
  const on = metrics !== noMetrics;
  const queries = metrics.counter({
    name: 'platform_search_queries_total',
    help: 'Search queries run, by mode and outcome (ok, error)',
    labels: ['mode', 'outcome'],
  });
  const duration = metrics.histogram({
    name: 'platform_search_query_duration_seconds',
    help: 'Search queries from start to result, by mode',
    labels: ['mode'],
  });
  return <T extends { total: number }>(mode: QueryMode, parent: Trace | undefined, run: () => Promise<T>): Promise<T> =>
    inSpan(parent, `search ${mode}`, { 'search.mode': mode }, async (span) => {
      if (!on) {
        const r = await run();
        span.setAttribute('search.total', r.total);
        return r;
      }
      const start = process.hrtime.bigint();
      let outcome = 'error';
      try {
        const r = await run();
        span.setAttribute('search.total', r.total);
        outcome = 'ok';
        return r;
      } finally {
        queries.inc({ mode, outcome });
        duration.observe({ mode }, secondsSince(start));
      }
    });
}

/**
 * The in-memory indexes' size, read on each scrape: objects and passages in the full-text indexes
 * (every worker holds the same, so the primary keeps the largest: `max`), and an estimate of the
 * memory all of them hold (memory.ts; each worker holds its own copy: `sum`).
 */
export function indexGauges(metrics: Metrics, held: { counts(): { objects: number; passages: number }; memoryBytes(): number }): void {
  if (metrics === noMetrics) return;
  metrics.gauge({
    name: 'platform_search_index_objects',
    help: 'Objects in the in-memory search indexes of the process',
    aggregate: 'max',
    collect: (g) => g.set({}, held.counts().objects),
  });
  metrics.gauge({
    name: 'platform_search_index_passages',
    help: 'Passages in the in-memory search indexes of the process',
    aggregate: 'max',
    collect: (g) => g.set({}, held.counts().passages),
  });
  metrics.gauge({
    name: 'platform_search_index_memory_bytes',
    help: 'Estimated memory of the in-memory search indexes (full text, vectors, caches), summed over processes',
    aggregate: 'sum',
    collect: (g) => g.set({}, held.memoryBytes()),
  });
}
