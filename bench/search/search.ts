/**
 * `npm run bench:search`: the search service on SciFact (BEIR), through its REST face, next to
 * MiniSearch in the same run. Starts the built platform over a temporary data dir, ingests the
 * 5,183 abstracts (concurrency 8), evaluates the 300 test queries in four modes (page_size 100,
 * min_relevant_score 0: the whole ranking), times full text from one client and under autocannon,
 * then MiniSearch in process and behind express (as many processes as the platform's workers).
 * Needs `npm run build` first.
 *
 * Env: BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2), BENCH_INGEST_CONCURRENCY
 * (8), SCIFACT_DIR (another copy in the BEIR layout; bench/datasets/scifact by default); WORKERS, LOG_LEVEL (warn) pass
 * through to the platform. Exits non-zero on any error or non-2xx answer, not on missed targets.
 */
import { join } from 'node:path';
import { send, searchPath, tokens, type Mode } from '../shared/http-client';
import { scifactDir } from '../shared/datasets';
import { loadSciFact, percentile, quality } from '../shared/scifact';
import { ingest, ingestObject, measureLoad, oneClient, rankAll } from './measure';
import { measurePeerInProcess, minisearchVersion, peerPath, startPeerServer } from './peer';
import { searchReport, type SearchResults } from './results';
import {
  freePorts,
  logWarnings,
  machineLine,
  makeTempDir,
  platformWorkers,
  ROOT,
  runBench,
  startPlatform,
  stopMeasured,
} from '../shared/platform';
import { settings } from '../shared/settings';

const MODES: Mode[] = ['fulltext', 'semantic', 'hybrid', 'hybrid re-ranked'];
const SUCCESS = '"status":"success"';

async function main(): Promise<number> {
  const s = settings();
  const concurrency = Number(process.env.BENCH_INGEST_CONCURRENCY || 8);
  const datasetDir = scifactDir();
  const { docs, queries } = loadSciFact(datasetDir);
  const workers = platformWorkers();
  const out = process.stdout;
  out.write(`${machineLine()}\n`);
  out.write(
    `SciFact from ${datasetDir}: ${docs.length} docs, ${queries.length} test queries; platform WORKERS=${workers}, ` +
      `LOG_LEVEL=${process.env.LOG_LEVEL || 'warn'}; autocannon ${s.connections} connections, ${s.seconds} s after ${s.warmup} s warm-up\n\n`,
  );

  const dir = makeTempDir('search-bench-');
  const [platformPort, peerPort] = (await freePorts(2)) as [number, number];
  const failures: string[] = [];
  const r: SearchResults = { docs: docs.length, queries: queries.length, workers, concurrency, quality: {}, oddities: [], failures };
  try {
    const platform = await startPlatform(dir, platformPort);
    const { url } = platform;
    const tok = tokens(url, platform.boot);
    const post = ingestObject(url, tok);
    r.ingest = await ingest('ingest', docs, concurrency, (d) => post({ title: d.title, content: d.text, ext_user_id_ref: d.id }));

    const texts = queries.map((q) => q.text);
    for (const mode of MODES) {
      const ranked = await rankAll(url, tok, mode, texts, 100, mode === 'fulltext' || mode === 'semantic' ? 0 : undefined);
      r.quality[mode] = { ...quality(queries, ranked.rankings), p50: percentile(ranked.times, 0.5) };
      r.oddities.push(...ranked.oddities);
    }

    const paths = texts.map((q) => searchPath('fulltext', q, 20));
    const times = await oneClient(url, tok, paths);
    r.oneClient = {
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      qps: 1000 / (times.reduce((a, b) => a + b, 0) / times.length),
    };
    r.load = await measureLoad('platform REST fulltext', url, paths, () => tok.headers(), SUCCESS, s, failures, platform.child.proc.pid);
    await stopMeasured(platform.child, failures);
    r.oddities.push(...logWarnings(platform.logFile));

    process.stderr.write('MiniSearch in process...\n');
    r.peerVersion = minisearchVersion(ROOT);
    r.peerInProcess = measurePeerInProcess(docs, queries);
    const peer = await startPeerServer(ROOT, peerPort, join(datasetDir, 'corpus.jsonl'), workers, join(dir, 'peer.log'));
    const peerPaths = texts.map((q) => peerPath(q, 20));
    const json = { 'content-type': 'application/json' };
    const check = await send('POST', peer.url + peerPaths[0], '{}', json);
    if (check.status !== 200 || !check.text.includes(SUCCESS))
      throw new Error(`peer: check request answered ${check.status} ${check.text.slice(0, 200)}`);
    r.peerLoad = await measureLoad(
      `MiniSearch ${r.peerVersion} express`,
      peer.url,
      peerPaths,
      async () => json,
      SUCCESS,
      s,
      failures,
      peer.child.proc.pid,
    );
    await stopMeasured(peer.child, failures);
  } catch (err) {
    failures.push(`stopped early: ${(err as Error)?.stack ?? String(err)}`);
  }

  out.write(`\n${searchReport(r)}\n\n`);
  if (failures.length) {
    out.write(`FAILED (the figures above include these errors):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

runBench('bench:search', main);
