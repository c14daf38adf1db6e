import { useEffect, useId, useMemo, useState } from 'react';
import { useClient, useQuery, type CombinedError } from 'urql';
import { DayChart, type ChartSeries } from '../ui/chart';
import { Pager } from '../ui/pager';
import { Empty, Failure, Loading } from '../ui/states';

const USAGE = `query ConsoleUsage($tenant: ID, $key: ID, $model: String, $from: String, $to: String, $after: String) {
  adminUsage(tenant: $tenant, key: $key, model: $model, from: $from, to: $to, first: 200, after: $after) {
    items { day tenantId keyId model requests inputTokens outputTokens wordsSent wordsReceived cacheHits errors cost }
    nextCursor total
  }
}`;
const KEYS = `query ConsoleUsageKeys($after: String) {
  adminModelKeys(first: 200, sort: "name", after: $after) { items { id prefix name tenantId } nextCursor total }
}`;
const MODELS = `query ConsoleUsageModels { adminModels(first: 200) { items { id } } }`;

interface Row {
  day: string;
  tenantId: string;
  keyId: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  wordsSent: number;
  wordsReceived: number;
  cacheHits: number;
  errors: number;
  cost: number;
}
interface KeyRow {
  id: string;
  prefix: string;
  name: string;
  tenantId: string;
}
interface GraphPage<T> {
  items: T[];
  nextCursor: string | null;
  total: number;
}
interface Filters {
  from: string;
  to: string;
  tenant: string;
  key: string;
  model: string;
}
type By = 'model' | 'key' | 'tenant';

/** Rows read at most (pages of 200): beyond it the page says the figures are partial. */
const MAX_ROWS = 20_000;
/** Lines drawn at most per chart: the largest groups, the rest summed as "other". */
const MAX_SERIES = 8;
/** Rows of the totals table per page. */
const TOTALS_PAGE = 25;
const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
const number = new Intl.NumberFormat('en-US');
const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });

function lastDays(n: number): Pick<Filters, 'from' | 'to'> {
  const today = dayMs(isoDay(Date.now()));
  return { from: isoDay(today - (n - 1) * DAY_MS), to: isoDay(today) };
}

/** Every day from `from` to `to`, both included (empty when the range is not one the graph takes). */
function daysOf(from: string, to: string): string[] {
  const a = dayMs(from);
  const b = dayMs(to);
  if (!Number.isFinite(a) || !Number.isFinite(b) || a > b || (b - a) / DAY_MS + 1 > MAX_DAYS) return [];
  const days: string[] = [];
  for (let t = a; t <= b; t += DAY_MS) days.push(isoDay(t));
  return days;
}

/** Usage rows as CSV: the admin API's field names (GET /admin/api/v1/usage), text cells quoted, none read as a formula. */
export function usageCsv(rows: Row[]): string {
  const text = (v: string) => {
    const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
    return /[",\r\n]/.test(safe) || safe !== v ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const head = 'day,tenant_id,key_id,model,requests,input_tokens,output_tokens,words_sent,words_received,cache_hits,errors,cost';
  const lines = rows.map((r) =>
    [
      r.day,
      text(r.tenantId),
      text(r.keyId),
      text(r.model),
      r.requests,
      r.inputTokens,
      r.outputTokens,
      r.wordsSent,
      r.wordsReceived,
      r.cacheHits,
      r.errors,
      r.cost,
    ].join(','),
  );
  return [head, ...lines].join('\r\n') + '\r\n';
}

interface Loaded<T> {
  rows: T[];
  total: number;
  /** Rows read so far while pages are still coming. */
  read: number;
  loading: boolean;
  error?: CombinedError | Error;
}

/**
 * Every item of a paged admin list (`field`), page after page of 200 (up to MAX_ROWS), read again
 * whenever `vars` is a new object.
 */
function useAll<T>(query: string, field: string, vars: Record<string, unknown>): Loaded<T> {
  const client = useClient();
  const [state, setState] = useState<Loaded<T>>({ rows: [], total: 0, read: 0, loading: true });
  useEffect(() => {
    let live = true;
    const failed = (error: CombinedError | Error) => live && setState({ rows: [], total: 0, read: 0, loading: false, error });
    setState({ rows: [], total: 0, read: 0, loading: true });
    void (async () => {
      const rows: T[] = [];
      let after: string | undefined;
      let total = 0;
      for (;;) {
        const r = await client.query<Record<string, GraphPage<T>>>(query, { ...vars, after }).toPromise();
        if (!live) return;
        const page = r.data?.[field];
        if (r.error || !page) return failed(r.error ?? new Error('No answer from the graph.'));
        rows.push(...page.items);
        total = page.total;
        if (!page.nextCursor || rows.length >= MAX_ROWS) break;
        after = page.nextCursor;
        setState((s) => ({ ...s, total, read: rows.length }));
      }
      setState({ rows, total, read: rows.length, loading: false });
    })().catch((e: unknown) => failed(e instanceof Error ? e : new Error(String(e))));
    return () => {
      live = false;
    };
  }, [client, query, field, vars]);
  return state;
}

const NO_VARS = {};

/** Calls per day, model, key and tenant, with filters, charts, totals and a CSV of the rows. */
export function Usage() {
  const [draft, setDraft] = useState<Filters>(() => ({ ...lastDays(30), tenant: '', key: '', model: '' }));
  const [filters, setFilters] = useState<Filters>(draft);
  const [by, setBy] = useState<By>('model');
  // Selects are labelled by `for`: a label around a select would take its options' text into its name.
  const id = useId();
  const ids = { key: `${id}-key`, model: `${id}-model` };
  const vars = useMemo(
    () => ({
      from: filters.from,
      to: filters.to,
      tenant: filters.tenant.trim() || undefined,
      key: filters.key || undefined,
      model: filters.model || undefined,
    }),
    [filters],
  );
  const usage = useAll<Row>(USAGE, 'adminUsage', vars);
  // Every key (the filter's choices, and the names the charts and totals give keys), and the catalog's models.
  const allKeys = useAll<KeyRow>(KEYS, 'adminModelKeys', NO_VARS);
  const [catalog] = useQuery<{ adminModels: { items: { id: string }[] } }>({ query: MODELS });
  const keys = allKeys.rows;
  const models = catalog.data?.adminModels.items ?? [];
  const keyNames = useMemo(() => new Map(keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`])), [keys]);
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form
        className="inline-form usage-filters"
        aria-label="Usage filters"
        onSubmit={(e) => {
          e.preventDefault();
          // A new object each time: the same filters are read again (new calls since).
          setFilters({ ...draft });
        }}
      >
        <label className="field">
          From
          <input type="date" required value={draft.from} max={draft.to} onChange={set('from')} />
        </label>
        <label className="field">
          To
          <input type="date" required value={draft.to} min={draft.from} onChange={set('to')} />
        </label>
        <label className="field">
          Tenant
          <input value={draft.tenant} onChange={set('tenant')} autoComplete="off" placeholder="every tenant" />
        </label>
        <div className="field">
          <label htmlFor={ids.key}>Key</label>
          <select value={draft.key} onChange={set('key')} id={ids.key}>
            <option value="">Every key</option>
            {keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix}…)
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.model}>Model</label>
          <select value={draft.model} onChange={set('model')} id={ids.model}>
            <option value="">Every model</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="usage-apply">
          Show usage
        </button>
      </form>
      {allKeys.error && <Failure error={allKeys.error} />}
      {catalog.error && <Failure error={catalog.error} />}
      <UsageView usage={usage} filters={filters} by={by} setBy={setBy} keyNames={keyNames} />
    </section>
  );
}

function UsageView({
  usage,
  filters,
  by,
  setBy,
  keyNames,
}: {
  usage: Loaded<Row>;
  filters: Filters;
  by: By;
  setBy: (by: By) => void;
  keyNames: Map<string, string>;
}) {
  const byId = useId();
  const days = useMemo(() => daysOf(filters.from, filters.to), [filters.from, filters.to]);
  const groups = useMemo(() => {
    const of = (r: Row) => (by === 'model' ? r.model : by === 'key' ? r.keyId : r.tenantId);
    const index = new Map(days.map((d, i) => [d, i]));
    const map = new Map<
      string,
      { id: string; requests: number[]; tokens: number[]; total: Omit<Row, 'day' | 'tenantId' | 'keyId' | 'model'> }
    >();
    for (const r of usage.rows) {
      const id = of(r);
      let g = map.get(id);
      if (!g) {
        g = {
          id,
          requests: days.map(() => 0),
          tokens: days.map(() => 0),
          total: { requests: 0, inputTokens: 0, outputTokens: 0, wordsSent: 0, wordsReceived: 0, cacheHits: 0, errors: 0, cost: 0 },
        };
        map.set(id, g);
      }
      const i = index.get(r.day);
      if (i !== undefined) {
        g.requests[i] += r.requests;
        g.tokens[i] += r.inputTokens + r.outputTokens;
      }
      for (const k of Object.keys(g.total) as (keyof typeof g.total)[]) g.total[k] += r[k];
    }
    return [...map.values()].sort((a, b) => b.total.requests - a.total.requests || a.id.localeCompare(b.id));
  }, [usage.rows, by, days]);

  const label = (id: string) => (by === 'key' ? (keyNames.get(id) ?? id) : id);
  const series = useMemo(() => {
    const pick = (values: (g: (typeof groups)[number]) => number[]): ChartSeries[] => {
      const shown = groups.slice(0, groups.length > MAX_SERIES ? MAX_SERIES - 1 : MAX_SERIES);
      const rest = groups.slice(shown.length);
      const out = shown.map((g) => ({ label: by === 'key' ? (keyNames.get(g.id) ?? g.id) : g.id, values: values(g) }));
      if (rest.length) out.push({ label: `${rest.length} others`, values: days.map((_, i) => rest.reduce((s, g) => s + values(g)[i], 0)) });
      return out;
    };
    return { requests: pick((g) => g.requests), tokens: pick((g) => g.tokens) };
  }, [groups, days, by, keyNames]);

  // The CSV as a blob: address, made for these rows and let go with them.
  const [csv, setCsv] = useState<string>();
  useEffect(() => {
    if (!usage.rows.length) return setCsv(undefined);
    const url = URL.createObjectURL(new Blob([usageCsv(usage.rows)], { type: 'text/csv' }));
    setCsv(url);
    return () => URL.revokeObjectURL(url);
  }, [usage.rows]);

  // The totals table's pages: the offsets seen, as the pager keeps cursors (back to the first on a new grouping or new rows).
  const [offsets, setOffsets] = useState<(string | null)[]>([null]);
  useEffect(() => setOffsets([null]), [groups]);

  if (usage.loading)
    return <Loading what={usage.read ? `usage: ${number.format(usage.read)} of ${number.format(usage.total)} rows` : 'usage'} />;
  if (usage.error) return <Failure error={usage.error} />;
  const range = `${filters.from} to ${filters.to}`;
  if (usage.rows.length === 0) return <Empty>No calls from {range} match these filters.</Empty>;

  const all = groups.reduce(
    (s, g) => ({
      requests: s.requests + g.total.requests,
      inputTokens: s.inputTokens + g.total.inputTokens,
      outputTokens: s.outputTokens + g.total.outputTokens,
      errors: s.errors + g.total.errors,
      cost: s.cost + g.total.cost,
    }),
    { requests: 0, inputTokens: 0, outputTokens: 0, errors: 0, cost: 0 },
  );
  const byName = { model: 'Model', key: 'Key', tenant: 'Tenant' }[by];
  const offset = Number(offsets[offsets.length - 1] ?? 0);
  const shown = Math.min(TOTALS_PAGE, groups.length - offset);
  return (
    <>
      <p role="status" className="usage-summary">
        {number.format(all.requests)} requests and {number.format(all.inputTokens + all.outputTokens)} tokens from {range} (
        {number.format(usage.rows.length)} rows)
        {usage.rows.length < usage.total &&
          `; only the first ${number.format(usage.rows.length)} of ${number.format(usage.total)} rows are counted`}
        .
      </p>
      <div className="usage-tools">
        <div className="field">
          <label htmlFor={byId}>Group by</label>
          <select value={by} onChange={(e) => setBy(e.target.value as By)} id={byId}>
            <option value="model">by model</option>
            <option value="key">by key</option>
            <option value="tenant">by tenant</option>
          </select>
        </div>
        {csv && (
          <a className="usage-download" href={csv} download={`usage-${filters.from}-to-${filters.to}.csv`}>
            Download CSV ({number.format(usage.rows.length)} rows)
          </a>
        )}
      </div>
      <div className="usage-charts">
        <DayChart
          title={`Requests per day, by ${by}`}
          label={`Line chart of requests per day by ${by}, ${range}; the totals are in the table below.`}
          days={days}
          series={series.requests}
        />
        <DayChart
          title={`Tokens per day, by ${by}`}
          label={`Line chart of tokens (in and out) per day by ${by}, ${range}; the totals are in the table below.`}
          days={days}
          series={series.tokens}
        />
      </div>
      <div className="table-wrap">
        <table className="usage-totals">
          <caption>
            Totals by {by}, {range}
          </caption>
          <thead>
            <tr>
              <th scope="col">{byName}</th>
              <th scope="col">Requests</th>
              <th scope="col">Input tokens</th>
              <th scope="col">Output tokens</th>
              <th scope="col">Errors</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {groups.slice(offset, offset + TOTALS_PAGE).map((g) => (
              <tr key={g.id}>
                <th scope="row">{label(g.id)}</th>
                <td>{number.format(g.total.requests)}</td>
                <td>{number.format(g.total.inputTokens)}</td>
                <td>{number.format(g.total.outputTokens)}</td>
                <td>{number.format(g.total.errors)}</td>
                <td>{dollars.format(g.total.cost)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All</th>
              <td>{number.format(all.requests)}</td>
              <td>{number.format(all.inputTokens)}</td>
              <td>{number.format(all.outputTokens)}</td>
              <td>{number.format(all.errors)}</td>
              <td>{dollars.format(all.cost)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
      {groups.length > TOTALS_PAGE && (
        <Pager
          cursors={offsets}
          next={offset + TOTALS_PAGE < groups.length ? String(offset + TOTALS_PAGE) : null}
          total={groups.length}
          shown={shown}
          onPage={setOffsets}
        />
      )}
    </>
  );
}
