/** The Usage page's data: the graph's queries, rows, the range's days, the CSV, and every page of a list. */
import { useEffect, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
export { USAGE, KEYS, MODELS } from '../../operations/usage';

export interface Row {
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
export interface KeyRow {
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
export interface Filters {
  from: string;
  to: string;
  tenant: string;
  key: string;
  model: string;
}
export type By = 'model' | 'key' | 'tenant';

/** Rows read at most (pages of 200): beyond it the page says the figures are partial. */
export const MAX_ROWS = 20_000;
/** Lines drawn at most per chart: the largest groups, the rest summed as "other". */
export const MAX_SERIES = 8;
/** Rows of the totals table per page. */
export const TOTALS_PAGE = 25;
export const DAY_MS = 86_400_000;
export const MAX_DAYS = 366;

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
export const number = new Intl.NumberFormat('en-US');
export const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });

export function lastDays(n: number): Pick<Filters, 'from' | 'to'> {
  const today = dayMs(isoDay(Date.now()));
  return { from: isoDay(today - (n - 1) * DAY_MS), to: isoDay(today) };
}

/** Every day from `from` to `to`, both included (empty when the range is not one the graph takes). */
export function daysOf(from: string, to: string): string[] {
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

export interface Loaded<T> {
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
export function useAll<T>(query: string, field: string, vars: Record<string, unknown>): Loaded<T> {
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
