/**
 * The arithmetic of `npm run bench:builds`: each scenario's runs on both builds, one per round, and
 * what the report makes of them. A build's figure is the median of its rounds; a ratio after/before
 * is the median of the rounds' ratios (each round's two runs are seconds apart, so a machine that
 * gets busier or quieter during the bench moves both sides of a ratio alike).
 */
import type { Measured } from '../shared/load';
import { median } from '../telemetry/report';

export { median };

/** One measured run: autocannon's figures, or a streamed scenario's (whole answers), with its first chunk. */
export interface Run extends Measured {
  /** Time to the first chunk of a streamed answer, ms. */
  firstP50?: number;
  firstP99?: number;
}

export type Side = 'before' | 'after';

/** One scenario on both builds: `before[i]` and `after[i]` are round i's runs. */
export interface Paired {
  scenario: string;
  before: Run[];
  after: Run[];
}

export type Pick = (r: Run) => number | undefined;

/** Each round's after/before of `pick`; NaN for a round where either side has no figure. */
export function roundRatios(p: Paired, pick: Pick): number[] {
  return p.after.map((a, i) => {
    const b = p.before[i];
    const v = pick(a);
    const w = b && pick(b);
    return v === undefined || w === undefined ? Number.NaN : v / w;
  });
}

export interface Compared {
  before: number;
  after: number;
  /** Median of the rounds' ratios. */
  ratio: number;
}

export function compare(p: Paired, pick: Pick): Compared {
  const of = (runs: Run[]) => median(runs.map((r) => pick(r) ?? Number.NaN));
  return { before: of(p.before), after: of(p.after), ratio: median(roundRatios(p, pick)) };
}

/** Which build goes first in round `round` (0-based): before in even rounds, after in odd ones. */
export const orderOf = (round: number): Side[] => (round % 2 ? ['after', 'before'] : ['before', 'after']);

export const pick = {
  rps: (r: Run) => r.rps,
  p50: (r: Run) => r.p50,
  p99: (r: Run) => r.p99,
  cpuMs: (r: Run) => r.cpuMs,
  firstP50: (r: Run) => r.firstP50,
  firstP99: (r: Run) => r.firstP99,
} satisfies Record<string, Pick>;

/**
 * Whether a scenario regressed beyond `tolerance` (0.05: 5 %): more server CPU per answer (the
 * steadiest figure on a quiet shared machine), fewer requests per second, or a slower p50 (for a
 * stream, of the first chunk too). p99 is shown, not judged: it moves most from run to run.
 */
export function regressions(p: Paired, tolerance: number): string[] {
  const out: string[] = [];
  const cpu = compare(p, pick.cpuMs).ratio;
  if (cpu > 1 + tolerance) out.push(`CPU/answer ${cpu.toFixed(3)}x`);
  const rps = compare(p, pick.rps).ratio;
  if (rps < 1 - tolerance) out.push(`req/s ${rps.toFixed(3)}x`);
  for (const [name, f] of [
    ['p50', pick.p50],
    ['first chunk p50', pick.firstP50],
  ] as const) {
    const r = compare(p, f).ratio;
    if (r > 1 + tolerance) out.push(`${name} ${r.toFixed(3)}x`);
  }
  return out;
}

/** The lowest and highest of the rounds' ratios of `pick`: how much the machine moved them. */
export function spread(p: Paired, f: Pick): [number, number] {
  const r = roundRatios(p, f).filter(Number.isFinite);
  return r.length ? [Math.min(...r), Math.max(...r)] : [Number.NaN, Number.NaN];
}
