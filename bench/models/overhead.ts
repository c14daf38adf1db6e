/**
 * The gateway against a bare pass-through proxy (issue 35's goal: p50 no more than 2x the bare
 * proxy's, p99 no more than 3x), from the one-client latencies of the same run. Two readings,
 * both printed: the goal's (total latency through the gateway over total latency through the
 * bare proxy, whole answers and a stream's first byte), and the stricter one of what each adds
 * over the direct call (gateway − direct over bare − direct), where the proxying both must do
 * is not in the numerator's favour.
 */
import type { Latency } from './latency';
import { verdict } from '../shared/progress';

export interface OverheadRatio {
  what: string;
  /** Gateway over bare proxy, total latency. */
  total: number;
  /** (gateway − direct) over (bare − direct): NaN when the bare proxy added nothing measurable. */
  added: number;
  goal: number;
}

const ratioOf = (gateway: number, bare: number, direct: number): Pick<OverheadRatio, 'total' | 'added'> => ({
  total: gateway / bare,
  added: bare - direct > 0 ? (gateway - direct) / (bare - direct) : Number.NaN,
});

/** p50 (goal 2x) and p99 (goal 3x), of whole answers and of a stream's first byte. */
export function overheadRatios(
  direct: Latency,
  bare: Latency,
  gateway: Latency,
  streamed: { direct: Latency; bare: Latency; gateway: Latency },
): OverheadRatio[] {
  return [
    { what: 'whole answer p50', ...ratioOf(gateway.p50, bare.p50, direct.p50), goal: 2 },
    { what: 'whole answer p99', ...ratioOf(gateway.p99, bare.p99, direct.p99), goal: 3 },
    { what: 'stream first byte p50', ...ratioOf(streamed.gateway.ttfb50, streamed.bare.ttfb50, streamed.direct.ttfb50), goal: 2 },
    { what: 'stream first byte p99', ...ratioOf(streamed.gateway.ttfb99, streamed.bare.ttfb99, streamed.direct.ttfb99), goal: 3 },
  ];
}

const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');

/** One line per ratio: the goal's reading decides met or not; the added-over-direct one is shown beside it. */
export const overheadLines = (ratios: OverheadRatio[]): string[] =>
  ratios.map(
    (r) =>
      `target: gateway ${r.what} at most ${r.goal}x the bare proxy's: ${x(r.total)}: ${verdict(r.total <= r.goal)}` +
      ` (what each adds over the direct call: gateway ${x(r.added)} the bare proxy's)`,
  );
