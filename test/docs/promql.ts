/**
 * The metrics the dashboard and docs/observability.md may name (the telemetry contract: a metric
 * renamed in the code must be renamed here, in the dashboard and in the docs), and a reader of
 * PromQL that finds the metrics, labels and functions an expression names.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricInfo {
  type: MetricType;
  labels: readonly string[];
}

const m = (type: MetricType, ...labels: string[]): MetricInfo => ({ type, labels });

/** The platform's own metrics, as declared through the Metrics port. */
export const PLATFORM_METRICS: Readonly<Record<string, MetricInfo>> = {
  platform_http_server_request_duration_seconds: m('histogram', 'method', 'route', 'status'),
  platform_http_streams_open: m('gauge', 'route'),
  platform_db_pool_connections: m('gauge', 'state'),
  platform_redis_up: m('gauge'),
  platform_graphql_operations_total: m('counter', 'operation', 'type', 'outcome'),
  platform_graphql_operation_duration_seconds: m('histogram', 'operation', 'type', 'outcome'),
  platform_graphql_subscriptions_open: m('gauge', 'transport'),
  platform_graphql_subgraph_fetch_duration_seconds: m('histogram', 'subgraph', 'outcome'),
  platform_graphql_untrusted_operations_total: m('counter', 'mode'),
  platform_model_calls_total: m('counter', 'model', 'tenant', 'route', 'status'),
  platform_model_call_duration_seconds: m('histogram', 'model', 'route'),
  platform_model_tokens_total: m('counter', 'model', 'tenant', 'direction'),
  platform_model_cost_total: m('counter', 'model', 'tenant'),
  platform_model_cache_total: m('counter', 'model', 'tenant', 'result'),
  platform_model_guardrail_blocks_total: m('counter', 'model', 'tenant'),
  platform_model_attempts_total: m('counter', 'model', 'deployment', 'outcome'),
  platform_model_fallbacks_total: m('counter', 'model', 'to'),
  platform_model_retries_total: m('counter', 'model', 'deployment'),
  platform_model_cooldowns_total: m('counter', 'model', 'deployment'),
  platform_model_deployment_cooling: m('gauge', 'model', 'deployment'),
  platform_model_deployment_in_flight: m('gauge', 'model', 'deployment'),
  platform_model_budget_warnings_total: m('counter', 'kind', 'tenant'),
  platform_search_queries_total: m('counter', 'mode', 'outcome'),
  platform_search_query_duration_seconds: m('histogram', 'mode'),
  platform_search_index_objects: m('gauge'),
  platform_search_index_passages: m('gauge'),
  platform_search_index_memory_bytes: m('gauge'),
  platform_token_issued_total: m('counter', 'grant_type'),
  platform_token_failures_total: m('counter', 'grant_type', 'error'),
  platform_token_lockouts_total: m('counter'),
  platform_chat_answers_total: m('counter', 'stream', 'outcome'),
  platform_chat_answer_duration_seconds: m('histogram', 'stream'),
};

/** Node's own figures (prom-client's defaults) the dashboard and the docs use. */
export const NODE_METRICS: Readonly<Record<string, MetricInfo>> = {
  nodejs_eventloop_lag_seconds: m('gauge'),
  nodejs_eventloop_lag_p99_seconds: m('gauge'),
  nodejs_heap_size_used_bytes: m('gauge'),
  nodejs_gc_duration_seconds: m('histogram', 'kind'),
  process_cpu_seconds_total: m('counter'),
  process_resident_memory_bytes: m('gauge'),
  process_start_time_seconds: m('gauge'),
};

/** Prometheus's own series of each target. */
const SCRAPE_METRICS: Readonly<Record<string, MetricInfo>> = { up: m('gauge') };

export const KNOWN_METRICS: Readonly<Record<string, MetricInfo>> = { ...PLATFORM_METRICS, ...NODE_METRICS, ...SCRAPE_METRICS };

/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ['instance', 'job'];

const AGGREGATORS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
]);
const FUNCTIONS = new Set([
  'abs',
  'absent',
  'absent_over_time',
  'ceil',
  'changes',
  'clamp',
  'clamp_max',
  'clamp_min',
  'delta',
  'deriv',
  'exp',
  'floor',
  'histogram_quantile',
  'idelta',
  'increase',
  'irate',
  'label_join',
  'label_replace',
  'ln',
  'log2',
  'log10',
  'predict_linear',
  'rate',
  'resets',
  'round',
  'scalar',
  'sort',
  'sort_desc',
  'sqrt',
  'time',
  'timestamp',
  'vector',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'quantile_over_time',
  'last_over_time',
  'present_over_time',
]);
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const OPERATORS = new Set(['and', 'or', 'unless', 'bool', 'offset']);
/** Grafana's variables stand for a duration where they are used. */
const GRAFANA_DURATION = /\$__(rate_interval|interval|range)\b/g;

export interface Read {
  metrics: string[];
  labels: string[];
  functions: string[];
  /** What the reader could not place: unknown functions, unbalanced brackets. */
  errors: string[];
}

/**
 * The metrics (as named: `x_bucket` stays `x_bucket`), labels (in matchers and in by/without/on
 * lists) and functions of a PromQL expression. Strings, durations and numbers are skipped.
 */
export function readPromql(expr: string): Read {
  const src = expr.replace(GRAFANA_DURATION, '5m');
  const r: Read = { metrics: [], labels: [], functions: [], errors: [] };
  const token =
    /\s+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\[[^\]]*\]|\d+(?:\.\d+)?(?:ms|[smhdwy])|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_:][A-Za-z0-9_:]*|[{}()]|=~|!~|!=|==|>=|<=|[-+*/%^,=<>]/y;
  const tokens: string[] = [];
  for (let pos = 0; pos < src.length;) {
    token.lastIndex = pos;
    const hit = token.exec(src);
    if (!hit) {
      r.errors.push(`cannot read '${src.slice(pos, pos + 20)}'`);
      break;
    }
    pos = token.lastIndex;
    if (!/^\s+$/.test(hit[0])) tokens.push(hit[0]);
  }
  const ident = (t: string | undefined) => t !== undefined && /^[A-Za-z_:]/.test(t);
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '(') depth++;
    else if (t === ')') depth--;
    else if (t === '{') {
      // Label matchers: `label op "value"`, comma-separated.
      for (i++; i < tokens.length && tokens[i] !== '}'; i++)
        if (ident(tokens[i]) && ['=', '!=', '=~', '!~'].includes(tokens[i + 1])) r.labels.push(tokens[i]);
      if (tokens[i] !== '}') r.errors.push('unclosed {');
    } else if (ident(t)) {
      if (LABEL_LISTS.has(t)) {
        if (tokens[i + 1] !== '(') continue; // group_left without labels
        for (i += 2; i < tokens.length && tokens[i] !== ')'; i++) if (ident(tokens[i])) r.labels.push(tokens[i]);
      } else if (OPERATORS.has(t)) {
        continue;
      } else if (AGGREGATORS.has(t) || FUNCTIONS.has(t)) {
        r.functions.push(t);
      } else if (tokens[i + 1] === '(') {
        r.errors.push(`unknown function ${t}`);
      } else {
        r.metrics.push(t);
      }
    }
  }
  if (depth !== 0) r.errors.push('unbalanced parentheses');
  return r;
}

/** The metric a series name belongs to: itself, or a histogram's for its `_bucket`, `_sum`, `_count`. */
export function metricOf(series: string): { name: string; info: MetricInfo } | undefined {
  if (KNOWN_METRICS[series]) return { name: series, info: KNOWN_METRICS[series] };
  const base = series.replace(/_(bucket|sum|count)$/, '');
  const info = KNOWN_METRICS[base];
  return info?.type === 'histogram' && base !== series ? { name: base, info } : undefined;
}

/** What is wrong with an expression: metrics not in the list, labels none of its metrics has, unreadable parts. */
export function problemsOf(expr: string): string[] {
  const r = readPromql(expr);
  const bad = [...r.errors];
  if (!r.metrics.length) bad.push('names no metric');
  const labels = new Set(TARGET_LABELS);
  for (const series of r.metrics) {
    const known = metricOf(series);
    if (!known) {
      bad.push(`unknown metric ${series}`);
      continue;
    }
    known.info.labels.forEach((l) => labels.add(l));
    if (series.endsWith('_bucket')) labels.add('le');
  }
  for (const l of r.labels) if (!labels.has(l)) bad.push(`label ${l} is on none of ${r.metrics.join(', ')}`);
  return bad;
}
