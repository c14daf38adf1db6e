/** The tables of `npm run bench:scale` (Markdown, pasteable as is). */
import type { Measured } from '../shared/load';
import { fixed, markdownTable, verdict, whole } from '../shared/progress';
import { ENDPOINTS, type Endpoint } from './targets';

export interface Row {
  setup: string;
  endpoint: Endpoint;
  m: Measured;
  /** CPU ms per response of the platform processes (and nginx when in front). */
  platformCpuMs?: number;
  /** CPU ms per response of the PostgreSQL server (every backend), when it runs here. */
  dbCpuMs?: number;
}

export function resultsTable(rows: Row[]): string {
  return markdownTable(
    ['setup', 'endpoint', 'req/s', 'p50 ms', 'p99 ms', 'platform CPU ms/req', 'PostgreSQL CPU ms/req', 'responses', 'non-2xx'],
    rows.map((r) => [
      r.setup,
      r.endpoint,
      whole(r.m.rps),
      fixed(r.m.p50),
      fixed(r.m.p99),
      fixed(r.platformCpuMs, 3),
      fixed(r.dbCpuMs, 3),
      whole(r.m.requests),
      String(r.m.non2xx),
    ]),
    2,
  );
}

const find = (rows: Row[], setup: string, e: Endpoint) => rows.find((r) => r.setup === setup && r.endpoint === e);
const ratio = (a?: Row, b?: Row) => (a && b ? a.m.rps / b.m.rps : Number.NaN);

/** PostgreSQL against SQLite (one replica each), with the target for token issue and search. */
export function pgVsSqlite(rows: Row[], sqlite: string, pg: string): string {
  const lines = ['PostgreSQL + Redis / SQLite, one replica, req/s (target >= 0.70x for token issue and full-text search):'];
  for (const e of ENDPOINTS) {
    const r = ratio(find(rows, pg, e), find(rows, sqlite, e));
    const target = e === 'introspection' ? '(no target)' : verdict(Number.isFinite(r) ? r >= 0.7 : undefined);
    lines.push(`  ${e}: ${fixed(r)}x ${target}`);
  }
  // On a shared machine req/s moves with whatever else runs; CPU per request does not. Throughput at
  // full CPU is cores / CPU per request, so this ratio is what a saturated run converges to.
  lines.push('CPU per request, SQLite platform / (PostgreSQL platform + PostgreSQL server), Redis not counted:');
  for (const e of ENDPOINTS) {
    const lite = find(rows, sqlite, e);
    const onPg = find(rows, pg, e);
    const r =
      lite?.platformCpuMs !== undefined && onPg?.platformCpuMs !== undefined
        ? lite.platformCpuMs / (onPg.platformCpuMs + (onPg.dbCpuMs ?? 0))
        : undefined;
    lines.push(
      `  ${e}: ${fixed(lite?.platformCpuMs, 3)} / (${fixed(onPg?.platformCpuMs, 3)} + ${fixed(onPg?.dbCpuMs, 3)}) ms = ${fixed(r)}x`,
    );
  }
  return lines.join('\n');
}

/** N replicas behind nginx against one replica behind nginx. */
export function replicasVsOne(rows: Row[], setups: string[]): string {
  const lines = [`N replicas / 1 replica behind nginx, req/s (${setups.length} setups):`];
  for (const e of ENDPOINTS) {
    const one = find(rows, setups[0], e);
    lines.push(
      `  ${e}: ${
        setups
          .slice(1)
          .map((s, i) => `${i + 2} replicas ${fixed(ratio(find(rows, s, e), one))}x`)
          .join(', ') || 'n/a'
      }`,
    );
  }
  return lines.join('\n');
}
