import { useEffect, useId, useMemo, useState } from 'react';
import { DayChart, type ChartSeries } from '../../ui/chart';
import { Pager } from '../../ui/pager';
import { Empty, Failure, Loading } from '../../ui/states';
import { MAX_SERIES, TOTALS_PAGE, daysOf, dollars, number, usageCsv, type By, type Filters, type Loaded, type Row } from './data';

/** The rows read, grouped by model, key or tenant: a summary, the CSV, three charts (requests, tokens, cost in US dollars) and the totals. */
export function UsageView({
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
      { id: string; requests: number[]; tokens: number[]; cost: number[]; total: Omit<Row, 'day' | 'tenantId' | 'keyId' | 'model'> }
    >();
    for (const r of usage.rows) {
      const id = of(r);
      let g = map.get(id);
      if (!g) {
        g = {
          id,
          requests: days.map(() => 0),
          tokens: days.map(() => 0),
          cost: days.map(() => 0),
          total: { requests: 0, inputTokens: 0, outputTokens: 0, wordsSent: 0, wordsReceived: 0, cacheHits: 0, errors: 0, cost: 0 },
        };
        map.set(id, g);
      }
      const i = index.get(r.day);
      if (i !== undefined) {
        g.requests[i] += r.requests;
        g.tokens[i] += r.inputTokens + r.outputTokens;
        g.cost[i] += r.cost;
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
    return { requests: pick((g) => g.requests), tokens: pick((g) => g.tokens), cost: pick((g) => g.cost) };
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
        {number.format(all.requests)} requests, {number.format(all.inputTokens + all.outputTokens)} tokens and {dollars.format(all.cost)}{' '}
        from {range} ({number.format(usage.rows.length)} rows)
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
        <DayChart
          title={`Cost per day (US dollars), by ${by}`}
          label={`Line chart of cost in US dollars per day by ${by}, ${range}: ${dollars.format(all.cost)} in all; the totals are in the table below.`}
          days={days}
          series={series.cost}
          unit="usd"
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
