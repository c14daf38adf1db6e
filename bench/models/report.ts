/** The tables and target lines of `npm run bench:models` (Markdown, to paste into docs/performance.md). */
import type { Measured } from '../shared/load';
import type { Latency } from './latency';
import { markdownTable } from '../shared/progress';

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : 'n/a');

/** One client: whole answers (non-streamed) and first bytes (streamed), each against the direct call. */
export function latencyTable(whole: Latency[], streamed: Latency[]): string {
  const d = whole.find((l) => l.name === 'direct')!;
  const ds = streamed.find((l) => l.name === 'direct')!;
  return markdownTable(
    ['way', 'p50 ms', 'p99 ms', 'added p50', 'added p99', 'stream first byte p50', 'p99', 'added p50', 'added p99'],
    whole.map((w) => {
      const s = streamed.find((l) => l.name === w.name);
      const first = s
        ? [ms(s.ttfb50), ms(s.ttfb99), signed(s.ttfb50 - ds.ttfb50), signed(s.ttfb99 - ds.ttfb99)]
        : ['failed', 'failed', 'n/a', 'n/a'];
      return [w.name, ms(w.p50), ms(w.p99), signed(w.p50 - d.p50), signed(w.p99 - d.p99), ...first];
    }),
  );
}

/** Load runs: requests/s and latency, against the direct call and against Portkey at the same concurrency. */
export function loadTable(rows: (Measured & { way: string; connections: number; stream: boolean })[]): string {
  return markdownTable(
    ['way', 'stream', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'req/s vs direct', 'req/s vs Portkey'],
    rows.map((r) => {
      const same = (way: string) => rows.find((x) => x.way === way && x.connections === r.connections && x.stream === r.stream);
      return [
        r.way,
        r.stream ? 'yes' : 'no',
        String(r.connections),
        Math.round(r.rps).toString(),
        ms(r.p50),
        ms(r.p99),
        String(r.non2xx),
        String(r.errors),
        ratio(r.rps, same('direct')?.rps ?? Number.NaN),
        ratio(r.rps, same('portkey')?.rps ?? Number.NaN),
      ];
    }),
  );
}
