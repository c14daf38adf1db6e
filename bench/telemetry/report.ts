/** The table and the verdicts `npm run bench:telemetry` prints (Markdown, pasteable as is). */
import type { Measured } from '../shared/load';
import { fixed, markdownTable, verdict } from '../shared/progress';
import type { SetupKey } from './setups';

export const median = (values: number[]): number => {
  const v = values.filter(Number.isFinite).sort((x, y) => x - y);
  if (!v.length) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
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

const times = (r: number) => (Number.isFinite(r) ? `${r.toFixed(3)}x` : 'n/a');
const x = (v: number, base: number) => times(v / base);

/**
 * A setup against the baseline round by round: the median of (its run / the baseline's run in the
 * same round). Runs of one round are seconds apart, so a machine that gets busier or quieter during
 * the bench moves both sides of each ratio alike.
 */
export function paired(c: Cell, base: Cell, pick: (m: Measured) => number | undefined): number {
  return median(
    c.runs.map((r, i) => {
      const b = base.runs[i];
      const v = pick(r);
      const w = b && pick(b);
      return v === undefined || w === undefined ? Number.NaN : v / w;
    }),
  );
}
const rpsOf = (m: Measured) => m.rps;
const cpuOf = (m: Measured) => m.cpuMs;

export function table(cells: Cell[]): string {
  const head = [
    'endpoint',
    'setup',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server CPU ms/req',
    'req/s each round',
    'req/s vs (a)',
    'p50 vs (a)',
    'p99 vs (a)',
    'CPU/req vs (a)',
  ];
  const rows = cells.map((c) => {
    const s = summarize(c);
    const baseCell = cells.find((b) => b.endpoint === c.endpoint && b.setup === 'a')!;
    const base = summarize(baseCell);
    return [
      c.endpoint,
      c.setupName,
      fixed(s.rps, 0),
      fixed(s.p50),
      fixed(s.p99),
      fixed(s.cpuMs, 3),
      c.runs.map((r) => fixed(r.rps, 0)).join(' / '),
      times(paired(c, baseCell, rpsOf)),
      x(s.p50, base.p50),
      x(s.p99, base.p99),
      times(paired(c, baseCell, cpuOf)),
    ];
  });
  return markdownTable(head, rows, 2);
}

/** How much slower (b) and (c) may be than (a): metrics 5 %, traces 15 %. */
export const ALLOWED: Record<Exclude<SetupKey, 'a'>, number> = { b: 0.05, c: 0.15 };

/** The targets, judged on req/s (the median of the rounds' ratios); printed only, the exit code does not depend on them. */
export function targets(cells: Cell[]): string[] {
  const lines = [
    "targets (req/s against the baseline, the median of the rounds' ratios; reported only, they do not change the exit code):",
  ];
  for (const endpoint of [...new Set(cells.map((c) => c.endpoint))]) {
    const baseCell = cells.find((c) => c.endpoint === endpoint && c.setup === 'a')!;
    for (const key of ['b', 'c'] as const) {
      const cell = cells.find((c) => c.endpoint === endpoint && c.setup === key);
      if (!cell) continue;
      const ratio = paired(cell, baseCell, rpsOf);
      const floor = 1 - ALLOWED[key];
      lines.push(
        `  ${endpoint}, ${cell.setupName}: ${times(ratio)} of the baseline's req/s (rounds: ${cell.runs.map((r, i) => times(r.rps / (baseCell.runs[i]?.rps ?? Number.NaN))).join(' ')}) ` +
          `(target >= ${floor.toFixed(2)}x, at most ${ALLOWED[key] * 100} % slower): ${verdict(Number.isFinite(ratio) ? ratio >= floor : undefined)}; ` +
          `CPU per request ${times(paired(cell, baseCell, cpuOf))}`,
      );
    }
  }
  return lines;
}

/** Whether OTEL_TRACES_SAMPLER records every trace the bench starts (its default, parent-based always on, does). */
export const everyTrace = (sampler: string | undefined): boolean =>
  !sampler || sampler === 'always_on' || sampler === 'parentbased_always_on';
