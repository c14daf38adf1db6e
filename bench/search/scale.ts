/**
 * `npm run bench:search-scale`: the search service past 100,000 passages, through its REST face.
 * Generates a synthetic corpus (bench/search/corpus.ts; about 7.5 passages a document), ingests it
 * at concurrency 8, then reports disk use of search.db*, server RSS, one-client latency of full
 * text, semantic and hybrid (300 queries each, page_size 20), full-text queries/s under autocannon,
 * and, with the server stopped, the vector index's recall@10 against exact search in process
 * (bench/search/ann.ts).
 * The first queries of each mode after ingest (when a worker loads its indexes) are timed on their
 * own, before the measured ones. Needs `npm run build` first.
 *
 * Env: SCALE_DOCS (14000: about 105,000 passages), SCALE_QUERIES (300), BENCH_SECONDS (10),
 * BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2), BENCH_INGEST_CONCURRENCY (8), SCALE_DENSE_INDEX
 * (1 also measures the HNSW path a dense embedder takes: minutes of graph build); WORKERS and
 * LOG_LEVEL (warn) pass through. Exits non-zero on any error or non-2xx answer, not on missed targets.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chunkText } from '../../core/search/chunker';
import { treeCpuSeconds } from '../shared/cpu';
import { freePort } from '../shared/procs';
import { search, searchPath, tokens, type Mode } from '../shared/http-client';
import { syntheticCorpus } from './corpus';
import { percentile } from '../shared/scifact';
import { ingest, ingestObject, measureLoad, rankAll } from './measure';
import { measureAnn } from './ann';
import {
  logWarnings,
  machineLine,
  makeTempDir,
  platformWorkers,
  runBench,
  startPlatform,
  stopMeasured,
  treeRssMiB,
} from '../shared/platform';
import { scaleReport, type ScaleResults } from './scale-results';
import { settings } from '../shared/settings';

const MODES: Mode[] = ['fulltext', 'semantic', 'hybrid'];

const diskMiB = (dataDir: string) =>
  readdirSync(dataDir)
    .filter((f) => f.startsWith('search.db'))
    .reduce((sum, f) => sum + statSync(join(dataDir, f)).size, 0) /
  2 ** 20;

async function main(): Promise<number> {
  const s = settings();
  const docs = Number(process.env.SCALE_DOCS || 14_000);
  const concurrency = Number(process.env.BENCH_INGEST_CONCURRENCY || 8);
  const corpus = syntheticCorpus(docs);
  const queries = corpus.queries(Number(process.env.SCALE_QUERIES || 300));
  const workers = platformWorkers();
  process.stdout.write(
    `${machineLine()}\nplatform WORKERS=${workers}, LOG_LEVEL=${process.env.LOG_LEVEL || 'warn'}; ` +
      `autocannon ${s.connections} connections, ${s.seconds} s after ${s.warmup} s warm-up\n\n`,
  );

  process.stderr.write(`generating ${docs} documents...\n`);
  const all = Array.from({ length: docs }, (_, i) => corpus.doc(i));
  const passages = all.reduce((n, d) => n + chunkText(d.content).length, 0);
  const failures: string[] = [];
  const r: ScaleResults = {
    docs,
    passages,
    topics: corpus.topics,
    queries: queries.length,
    workers,
    concurrency,
    modes: {},
    firstMs: {},
    failures,
    oddities: [],
  };
  const dir = makeTempDir('search-scale-');
  try {
    const platform = await startPlatform(dir, await freePort());
    const { url, child } = platform;
    const tok = tokens(url, platform.boot);
    const post = ingestObject(url, tok);
    r.ingest = await ingest('ingest', all, concurrency, (d) =>
      post({ title: d.title, content: d.content, ext_user_id_ref: d.id, tags: [`topic-${d.topic}`] }),
    );
    r.diskMiB = diskMiB(platform.dataDir);
    r.rssAfterIngest = treeRssMiB(child.proc.pid);
    r.settleSeconds = await untilIdle(child.proc.pid);

    const texts = queries.map((q) => q.text);
    const topicOf = (ref: string) => Number(ref.slice('syn-'.length)) % corpus.topics;
    for (const mode of MODES) {
      // Several fresh connections at once, so every worker gets one and loads what this mode needs now.
      process.stderr.write(`${mode}: first queries after ingest...\n`);
      const firsts = await Promise.all(
        Array.from({ length: 2 * workers }, (_, i) =>
          search(url, tok, searchPath(mode, texts[texts.length - 1 - i], 20), { fresh: true, timeoutMs: 900_000 }),
        ),
      );
      r.firstMs[mode] = Math.max(...firsts.map((f) => f.ms));
      const ranked = await rankAll(url, tok, mode, texts, 20);
      const precision =
        ranked.rankings.reduce(
          (sum, refs, i) => sum + refs.slice(0, 10).filter((ref) => topicOf(ref) === queries[i].topic).length / 10,
          0,
        ) / queries.length;
      r.modes[mode] = { p50: percentile(ranked.times, 0.5), p99: percentile(ranked.times, 0.99), precision10: precision };
      r.oddities.push(...ranked.oddities);
    }
    const paths = texts.map((q) => searchPath('fulltext', q, 20));
    r.load = await measureLoad(
      'platform REST fulltext',
      url,
      paths,
      () => tok.headers(),
      '"status":"success"',
      s,
      failures,
      child.proc.pid,
    );
    r.diskMiB = diskMiB(platform.dataDir);
    r.rssAfterQueries = treeRssMiB(child.proc.pid);
    await stopMeasured(child, failures);
    r.oddities.push(...logWarnings(platform.logFile));

    r.ann = await measureAnn(docs, (i) => all[i], texts, process.env.SCALE_DENSE_INDEX === '1');
  } catch (err) {
    failures.push(`stopped early: ${(err as Error)?.stack ?? String(err)}`);
  }

  process.stdout.write(`\n${scaleReport(r)}\n\n`);
  if (failures.length) {
    process.stdout.write(`FAILED (the figures above include these errors):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

runBench('bench:search-scale', main);

/**
 * Waits until the server's processes use under a tenth of a core over a second (at most 120 s):
 * after an ingest, each worker indexes in the background what the others wrote. Returns the wait.
 */
async function untilIdle(pid: number | undefined): Promise<number> {
  const start = Date.now();
  let before = treeCpuSeconds(pid) ?? 0;
  while (Date.now() - start < 120_000) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeCpuSeconds(pid) ?? 0;
    if (now - before < 0.1) break;
    before = now;
  }
  return (Date.now() - start) / 1000;
}
