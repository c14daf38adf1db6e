/**
 * What `npm run bench:search` prints: quality by mode, speed, and the targets. Targets are
 * reported only; they never change the exit code.
 */
import type { Measured } from '../shared/load';
import type { Mode } from '../shared/http-client';
import type { Quality } from '../shared/scifact';
import type { PeerInProcess } from './peer';
import { fixed, markdownTable, verdict, whole } from '../shared/progress';

export interface SearchResults {
  docs: number;
  queries: number;
  workers: number;
  concurrency: number;
  ingest?: { seconds: number; perSecond: number };
  quality: Partial<Record<Mode, Quality & { p50: number }>>;
  oneClient?: { p50: number; p99: number; qps: number };
  load?: Measured;
  peerVersion?: string;
  peerInProcess?: PeerInProcess;
  peerLoad?: Measured;
  oddities: string[];
  failures: string[];
}

const RANKING_URL: Record<Mode, string> = {
  fulltext: 'v2/fulltext, min_relevant_score=0',
  semantic: 'v2/semantic, min_relevant_score=0',
  hybrid: 'v2/search, re_ranked=false',
  'hybrid re-ranked': 'v2/search, re_ranked=true',
};

export function searchReport(r: SearchResults): string {
  const peer = `MiniSearch ${r.peerVersion ?? ''}`.trim();
  const q = r.quality;
  const qualityRows = (Object.keys(RANKING_URL) as Mode[]).map((m) => [
    `platform REST ${m} (${RANKING_URL[m]})`,
    fixed(q[m]?.ndcg10, 4),
    fixed(q[m]?.recall100, 4),
    fixed(q[m]?.p50),
  ]);
  qualityRows.push([
    `${peer} in process (defaults)`,
    fixed(r.peerInProcess?.ndcg10, 4),
    fixed(r.peerInProcess?.recall100, 4),
    fixed(r.peerInProcess?.p50),
  ]);

  const loadRow = (name: string, m: Measured | undefined) => [
    name,
    fixed(m?.p50),
    fixed(m?.p99),
    whole(m?.rps),
    fixed(m?.cpuMs),
    whole(m?.requests),
    m ? String(m.non2xx) : 'n/a',
    m ? String(m.errors) : 'n/a',
    m ? String(m.badBodies) : 'n/a',
  ];
  const one = r.oneClient;
  const inProcess = r.peerInProcess;
  const speedRows = [
    [
      'platform REST fulltext, one client, sequential',
      fixed(one?.p50),
      fixed(one?.p99),
      whole(one?.qps),
      '-',
      ...(one ? [String(r.queries), '0', '0', '0'] : ['n/a', 'n/a', 'n/a', 'n/a']),
    ],
    loadRow(`platform REST fulltext, autocannon (WORKERS=${r.workers})`, r.load),
    [
      `${peer} in process, one client`,
      fixed(inProcess?.p50),
      fixed(inProcess?.p99),
      whole(inProcess?.qps),
      '-',
      inProcess ? String(r.queries) : 'n/a',
      '-',
      '-',
      '-',
    ],
    loadRow(`${peer} express, autocannon (${r.workers} processes)`, r.peerLoad),
  ];

  const ft = q.fulltext?.ndcg10;
  const ratio = r.load && r.peerLoad ? r.load.rps / r.peerLoad.rps : undefined;
  const cpuRatio = r.load?.cpuMs && r.peerLoad?.cpuMs ? r.peerLoad.cpuMs / r.load.cpuMs : undefined;
  const cmp = (a: number | undefined) => (a === undefined || ft === undefined ? undefined : a >= ft);
  const targets = [
    'targets (reported only; they do not change the exit code):',
    `  full-text nDCG@10 >= 0.68 (published BM25: 0.665 BEIR/Elasticsearch, 0.679 Anserini): ${fixed(ft, 4)}: ${verdict(ft === undefined ? undefined : ft >= 0.68)}`,
    `  hybrid nDCG@10 >= full-text: ${fixed(q.hybrid?.ndcg10, 4)} vs ${fixed(ft, 4)}: ${verdict(cmp(q.hybrid?.ndcg10))}; ` +
      `re-ranked ${fixed(q['hybrid re-ranked']?.ndcg10, 4)}: ${verdict(cmp(q['hybrid re-ranked']?.ndcg10))}`,
    `  one-client full-text p50 < 5 ms through REST: ${fixed(r.oneClient?.p50)} ms: ${verdict(r.oneClient ? r.oneClient.p50 < 5 : undefined)}`,
    `  full-text queries/s >= 5x ${peer}: ${whole(r.load?.rps)} / ${whole(r.peerLoad?.rps)} = ${fixed(ratio)}x: ${verdict(ratio === undefined ? undefined : ratio >= 5)}`,
    // What a saturated run converges to, whatever else the machine is doing: cores / CPU per query.
    `  (server CPU per query, ${peer} / platform: ${fixed(r.peerLoad?.cpuMs)} / ${fixed(r.load?.cpuMs)} ms = ${fixed(cpuRatio)}x)`,
  ];

  return [
    r.ingest
      ? `ingest: ${r.docs} docs through POST /cl/search/api/v2/objects in ${r.ingest.seconds.toFixed(1)} s at concurrency ${r.concurrency}: ${r.ingest.perSecond.toFixed(1)} docs/s`
      : 'ingest: not completed',
    '',
    `quality: ${r.queries} SciFact test queries, page_size 100; nDCG@10 (binary qrels, log2 discount, ideal over all relevant) and recall@100`,
    markdownTable(['ranking', 'nDCG@10', 'recall@100', 'p50 ms (page_size 100)'], qualityRows),
    '',
    'speed: full text, page_size 20 (default min_relevant_score); platform queries cycle through the 300 test claims',
    markdownTable(
      ['run', 'p50 ms', 'p99 ms', 'queries/s', 'server CPU ms/query', 'requests', 'non-2xx', 'conn errors', 'bad bodies'],
      speedRows,
    ),
    '',
    targets.join('\n'),
    r.oddities.length
      ? `\nlooked wrong in the service (its answers and its log):\n${r.oddities.map((o) => `  - ${o}`).join('\n')}`
      : q.fulltext
        ? '\nservice answers: nothing odd (scores in [0, 1], sorted, no repeats, result_count consistent)'
        : '',
  ].join('\n');
}
