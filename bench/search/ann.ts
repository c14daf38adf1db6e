/**
 * Recall@10 of the service's vector index against exact search, in process, over the passages the
 * service would store for the synthetic corpus: the same chunker and the same text embedded (title,
 * newline, passage: objects.ts `passagesOf`) by the built-in `hashingEmbedder`. Measured: the index
 * the service builds for that embedder (`createVectorIndex` with the embedder's `sparse` flag) and,
 * with SCALE_DENSE_INDEX=1, the dense path a model embedder would take (exact, then HNSW past
 * `exactBelow`; its graph build takes minutes at this size). Recall is as core/search/vectors/recall.ts
 * defines it, without a filter and with an accept-all filter (the service always passes one).
 */
import { performance } from 'node:perf_hooks';
import { hashingEmbedder } from '../../core/shared/text/embedder';
import { passagesOf } from '../../core/search/objects';
import { ExactStore } from '../../core/search/vectors/exact';
import { createVectorIndex, VECTOR_DEFAULTS, type VectorIndexOptions } from '../../core/search/vectors';
import { measureRecall } from '../../core/search/vectors/recall';
import type { SyntheticDoc } from './corpus';
import { percentile } from '../shared/scifact';
import { progress } from '../shared/progress';

export interface IndexResult {
  name: string;
  approximate: boolean;
  buildSeconds: number;
  recall10: number;
  recall10Filtered: number;
  p50: number;
  p99: number;
}

export interface AnnResult {
  passages: number;
  dimensions: number;
  embedSeconds: number;
  exactP50: number;
  indexes: IndexResult[];
}

const timed = (queries: readonly Float32Array[], run: (q: Float32Array) => unknown) =>
  queries.map((q) => {
    const t = performance.now();
    run(q);
    return performance.now() - t;
  });

export async function measureAnn(
  docs: number,
  doc: (i: number) => SyntheticDoc,
  queryTexts: readonly string[],
  dense: boolean,
): Promise<AnnResult> {
  const embedder = hashingEmbedder();
  const exact = new ExactStore(embedder.dimensions, 1 << 16);
  const tick = progress('in-process: embed passages', docs);
  let started = performance.now();
  for (let i = 0, id = 0; i < docs; i++) {
    const d = doc(i);
    for (const v of (await passagesOf(d.content, d.title, embedder)).vectors) exact.add(id++, v);
    tick(i + 1, `, ${exact.size} passages`);
  }
  const embedSeconds = (performance.now() - started) / 1000;
  const queries = await embedder.embed(queryTexts);
  const acceptAll = () => true;

  const variants: { name: string; opts: VectorIndexOptions }[] = [
    {
      name: `service index for ${embedder.id} (sparse: ${embedder.sparse ?? false})`,
      opts: { dimensions: embedder.dimensions, sparse: embedder.sparse },
    },
  ];
  if (dense) {
    const d = VECTOR_DEFAULTS;
    variants.push({
      name: `dense path (exactBelow ${d.exactBelow}, HNSW m ${d.m}, efC ${d.efConstruction}, efSearch ${d.efSearch})`,
      opts: { dimensions: embedder.dimensions },
    });
  }
  const indexes: IndexResult[] = [];
  for (const { name, opts } of variants) {
    process.stderr.write(`in-process: building ${name} over ${exact.size} vectors...\n`);
    started = performance.now();
    const index = createVectorIndex(opts);
    for (const { id, vector } of exact.entries()) index.add(id, vector);
    const buildSeconds = (performance.now() - started) / 1000;
    const filtered = { search: (q: Float32Array, k: number) => index.search(q, k, acceptAll) };
    const times = timed(queries, (q) => index.search(q, 10, acceptAll));
    indexes.push({
      name,
      approximate: index.approximate,
      buildSeconds,
      recall10: measureRecall(index, exact, queries, 10),
      recall10Filtered: measureRecall(filtered, exact, queries, 10),
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
    });
  }
  const exactTimes = timed(queries.slice(0, 50), (q) => exact.search(q, 10));
  return { passages: exact.size, dimensions: embedder.dimensions, embedSeconds, exactP50: percentile(exactTimes, 0.5), indexes };
}
