/** The table and the verdicts `npm run bench:telemetry` prints (Markdown, pasteable as is). */
import type { Measured } from '../shared/load';
import { fixed, markdownTable, verdict } from '../shared/progress';
import type { SetupKey } from './setups';

export const median = (values: number[]): number => {
  const v = values.filter(Number.isFinite).sort((x, y) => x - y);
  if (!v.length) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
};

/** One endpoint on one setup: its runs, one per round. */
export interface Cell {
  endpoint: string;
  setup: SetupKey;
  setupName: string;
  runs: Measured[];
}

export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
}

/** Medians over the rounds: one slow round (the shared machine busy elsewhere) moves them little. */
export const summarize = (c: Cell): Summary => ({
  rps: median(c.runs.map((r) => r.rps)),
  p50: median(c.runs.map((r) => r.p50)),
  p99: median(c.runs.map((r) => r.p99)),
  cpuMs: median(c.runs.map((r) => r.cpuMs ?? Number.NaN)),
});

const x = (v: number, base: number) => (Number.isFinite(v / base) ? `${(v / base).toFixed(3)}x` : 'n/a');

export function table(cells: Cell[]): string {
  const head = ['endpoint', 'setup', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'req/s each round', 'req/s vs (a)', 'p50 vs (a)', 'p99 vs (a)', 'CPU/req vs (a)'];
  const rows = cells.map((c) => {
    const s = summarize(c);
    const base = summarize(cells.find((b) => b.endpoint === c.endpoint && b.setup === 'a')!);
    return [
      c.endpoint, c.setupName, fixed(s.rps, 0), fixed(s.p50), fixed(s.p99), fixed(s.cpuMs, 3),
      c.runs.map((r) => fixed(r.rps, 0)).join(' / '),
      x(s.rps, base.rps), x(s.p50, base.p50), x(s.p99, base.p99), x(s.cpuMs, base.cpuMs),
    ];
  });
  return markdownTable(head, rows, 2);
}

/** How much slower (b) and (c) may be than (a): metrics 5 %, traces 15 %. */
export const ALLOWED: Record<Exclude<SetupKey, 'a'>, number> = { b: 0.05, c: 0.15 };

/** The targets, judged on req/s (medians over the rounds); printed only, the exit code does not depend on them. */
export function targets(cells: Cell[]): string[] {
  const lines = ['targets (req/s, medians of the rounds; reported only, they do not change the exit code):'];
  for (const endpoint of [...new Set(cells.map((c) => c.endpoint))]) {
    const base = summarize(cells.find((c) => c.endpoint === endpoint && c.setup === 'a')!);
    for (const key of ['b', 'c'] as const) {
      const cell = cells.find((c) => c.endpoint === endpoint && c.setup === key);
      if (!cell) continue;
      const s = summarize(cell);
      const ratio = s.rps / base.rps;
      const floor = 1 - ALLOWED[key];
      lines.push(
        `  ${endpoint}, ${cell.setupName}: ${fixed(s.rps, 0)} / ${fixed(base.rps, 0)} req/s = ${x(s.rps, base.rps)} of the baseline ` +
          `(target >= ${floor.toFixed(2)}x, at most ${ALLOWED[key] * 100} % slower): ${verdict(Number.isFinite(ratio) ? ratio >= floor : undefined)}; ` +
          `CPU per request ${x(s.cpuMs, base.cpuMs)}`,
      );
    }
  }
  return lines;
}
