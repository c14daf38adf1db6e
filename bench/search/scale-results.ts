/** What `npm run bench:search-scale` prints. The target is reported only; it never changes the exit code. */
import type { Measured } from '../shared/load';
import type { AnnResult } from './ann';
import type { Mode } from '../shared/http-client';
import { fixed, markdownTable, verdict, whole } from '../shared/progress';

export interface ScaleResults {
  docs: number;
  passages: number;
  topics: number;
  queries: number;
  workers: number;
  concurrency: number;
  ingest?: { seconds: number; perSecond: number };
  diskMiB?: number;
  rssAfterIngest?: { pid: number; mib: number }[];
  rssAfterQueries?: { pid: number; mib: number }[];
  /** Slowest of the first few queries of each mode after ingest, one per worker or more. */
  firstMs: Partial<Record<Mode, number>>;
  /** Seconds after ingest until the server's processes went idle (their indexes caught up in the background). */
  settleSeconds?: number;
  modes: Partial<Record<Mode, { p50: number; p99: number; precision10: number }>>;
  load?: Measured;
  ann?: AnnResult;
  oddities: string[];
  failures: string[];
}

const rss = (ps: { pid: number; mib: number }[] | undefined) =>
  ps?.length ? `${whole(ps.reduce((s, p) => s + p.mib, 0))} MiB (${ps.map((p) => `pid ${p.pid}: ${whole(p.mib)}`).join(', ')})` : 'n/a';

function annTable(a: AnnResult | undefined, queries: number): string {
  if (!a) return 'vector index recall: not measured';
  const head = [
    `vector index, in process (${whole(a.passages)} passages, ${a.dimensions}-d hashingEmbedder, ${queries} queries)`,
    'approximate',
    'build s',
    'recall@10 (no filter / accept-all)',
    'k=10 p50 ms',
    'k=10 p99 ms',
  ];
  const rows = [
    ...a.indexes.map((x) => [
      x.name,
      x.approximate ? 'yes' : 'no',
      fixed(x.buildSeconds, 1),
      `${fixed(x.recall10, 4)} / ${fixed(x.recall10Filtered, 4)}`,
      fixed(x.p50),
      fixed(x.p99),
    ]),
    ['exact scan (ExactStore), first 50 queries', 'no', '-', 'reference', fixed(a.exactP50), '-'],
  ];
  return `${markdownTable(head, rows)}\n(embedding the passages took ${a.embedSeconds.toFixed(1)} s)`;
}

export function scaleReport(r: ScaleResults): string {
  const ing = r.ingest;
  const setup = markdownTable(
    ['measure', 'value'],
    [
      [
        'corpus',
        `${whole(r.docs)} synthetic docs (~900 words), ${whole(r.passages)} passages (service chunker), ${whole(r.topics)} topics`,
      ],
      [
        `ingest (REST, concurrency ${r.concurrency})`,
        ing ? `${ing.seconds.toFixed(1)} s: ${fixed(ing.perSecond, 1)} docs/s, ${whole(r.passages / ing.seconds)} passages/s` : 'n/a',
      ],
      ['search.db* on disk', r.diskMiB === undefined ? 'n/a' : `${fixed(r.diskMiB, 1)} MiB`],
      [`server RSS after ingest (primary + ${r.workers} workers)`, rss(r.rssAfterIngest)],
      ['server RSS after all queries', rss(r.rssAfterQueries)],
      [
        'server busy after ingest (workers index what the others wrote), until idle',
        r.settleSeconds === undefined ? 'n/a' : `${r.settleSeconds.toFixed(1)} s`,
      ],
      [
        'first queries after that, slowest',
        Object.entries(r.firstMs)
          .map(([m, ms]) => `${m} ${whole(ms)} ms`)
          .join(', ') || 'n/a',
      ],
    ],
    2,
  );

  const modes = (['fulltext', 'semantic', 'hybrid'] as Mode[]).map((m) => {
    const x = r.modes[m];
    return [
      `${m}, one client, ${r.queries} queries`,
      fixed(x?.p50),
      fixed(x?.p99),
      fixed(x?.precision10, 3),
      verdict(x ? x.p99 < 50 : undefined),
    ];
  });
  const speed = markdownTable(['query (REST, page_size 20)', 'p50 ms', 'p99 ms', 'topic P@10', 'p99 < 50 ms'], modes);
  const l = r.load;
  const load = markdownTable(
    ['load', 'queries/s', 'p50 ms', 'p99 ms', 'server CPU ms/query', 'requests', 'non-2xx', 'conn errors', 'bad bodies'],
    [
      [
        `fulltext, autocannon, WORKERS=${r.workers}`,
        whole(l?.rps),
        fixed(l?.p50),
        fixed(l?.p99),
        fixed(l?.cpuMs),
        whole(l?.requests),
        l ? String(l.non2xx) : 'n/a',
        l ? String(l.errors) : 'n/a',
        l ? String(l.badBodies) : 'n/a',
      ],
    ],
  );

  return [
    setup,
    '',
    "queries: two topic words and one or two everyday words; topic P@10 = share of the first 10 hits from the query's topic (about 20 docs each)",
    speed,
    '',
    load,
    '',
    annTable(r.ann, r.queries),
    '',
    'targets (reported only): p99 < 50 ms per mode, see the last column of the query table',
    r.oddities.length ? `\nlooked wrong in the service (its answers and its log):\n${r.oddities.map((o) => `  - ${o}`).join('\n')}` : '',
  ].join('\n');
}
