/** The tables and target lines of `npm run bench:chat` (Markdown, to paste into docs/performance.md). */
import type { Throughput } from './load';
import type { WayTimes } from './latency';
import { percentile } from '../shared/scifact';
import { fixed, markdownTable, verdict } from '../shared/progress';

const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');
const p50 = (xs: readonly number[]) => percentile(xs, 0.5);
const p99 = (xs: readonly number[]) => percentile(xs, 0.99);

export interface ChatFigures {
  /** Added first piece, p50, ms. */
  addedFirst: number;
  addedFirst99: number;
  addedWhole: number;
  /** Added before the upstream is asked, p50, ms. */
  addedToUpstream: number;
  /** Added per piece of the stream, median, ms. */
  addedPerPiece: number;
}

export function figures(t: WayTimes[]): ChatFigures {
  const d = t.find((x) => x.way === 'direct')!;
  const c = t.find((x) => x.way === 'chat')!;
  return {
    addedFirst: p50(c.first) - p50(d.first),
    addedFirst99: p99(c.first) - p99(d.first),
    addedWhole: p50(c.whole) - p50(d.whole),
    addedToUpstream: p50(c.toUpstream) - p50(d.toUpstream),
    addedPerPiece: p50(c.gaps) - p50(d.gaps),
  };
}

/** One client: first piece, whole answer, time until the upstream is asked, and each piece's trip from the upstream. */
export function latencyTable(t: WayTimes[]): string {
  const f = figures(t);
  const d = t.find((x) => x.way === 'direct')!;
  const c = t.find((x) => x.way === 'chat')!;
  const row = (w: WayTimes) => [
    w.way,
    String(w.first.length),
    fixed(p50(w.first)),
    fixed(p99(w.first)),
    fixed(p50(w.whole)),
    fixed(p99(w.whole)),
    fixed(p50(w.toUpstream)),
    fixed(p50(w.gaps), 3),
    fixed(p99(w.gaps), 3),
  ];
  return markdownTable(
    [
      'way',
      'answers',
      'first piece p50',
      'p99',
      'whole answer p50',
      'p99',
      'until upstream asked p50*',
      'piece upstream→client p50*',
      'p99*',
    ],
    [
      row(d),
      row(c),
      [
        'added by the chat proxy',
        '',
        signed(f.addedFirst),
        signed(f.addedFirst99),
        signed(f.addedWhole),
        signed(p99(c.whole) - p99(d.whole)),
        signed(f.addedToUpstream),
        signed(f.addedPerPiece),
        signed(p99(c.gaps) - p99(d.gaps)),
      ],
    ],
  );
}

export function loadTable(rows: Throughput[]): string {
  const d = rows.find((r) => r.way === 'direct');
  return markdownTable(
    ['way', 'concurrent streams', 'answers/s', 'first piece p50', 'whole p50', 'whole p99', 'errors', 'answers/s vs direct'],
    rows.map((r) => [
      r.way,
      String(r.streams),
      fixed(r.perSecond, 1),
      fixed(p50(r.first)),
      fixed(p50(r.whole)),
      fixed(p99(r.whole)),
      String(r.errors),
      d ? `${fixed(r.perSecond / d.perSecond)}x` : 'n/a',
    ]),
  );
}

export function targetLines(f: ChatFigures): string[] {
  return [
    `target: the chat proxy adds under 10 ms p50 to the first piece (retrieval included): ${signed(f.addedFirst)} ms: ${verdict(f.addedFirst < 10)}`,
    `target: a stream's pieces leave the proxy within 1 ms of arriving from the gateway (median): ${signed(f.addedPerPiece)} ms: ${verdict(f.addedPerPiece < 1)}`,
  ];
}
