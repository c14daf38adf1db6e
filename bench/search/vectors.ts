/**
 * The vector index on a corpus shaped like ours: passages of 40-200 words drawn from a Zipf-like
 * vocabulary of 4,000 made-up words, embedded by the built-in `hashingEmbedder`. Pure Zipf has no
 * topics, so neighbours are weakly separated: a harder case for HNSW than real text. Reports HNSW
 * build time and memory (RSS delta), recall@10 against exact search for short queries (3-8 words)
 * and for passages, and query latency for k=10 (with and without a filter that accepts all, as
 * the search service always passes one) and k=100; and exact-scan latency by size, which sets
 * `exactBelow`. Run: `node --expose-gc dist/bench/search/vectors.js` after a build.
 *
 * Env: VEC_N (100000), VEC_DIMS (256), VEC_M (default m), VEC_EFC (default efConstruction),
 * VEC_QUERIES (500 of each kind), VEC_EF (comma list, 32,64,128,200,400,800).
 */
import { performance } from 'node:perf_hooks';
import { hashingEmbedder } from '../../core/shared/text/embedder';
import { ExactStore } from '../../core/search/vectors/exact';
import { HnswIndex } from '../../core/search/vectors/hnsw';
import { VECTOR_DEFAULTS } from '../../core/search/vectors';
import { measureRecall } from '../../core/search/vectors/recall';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const N = env('VEC_N', 100_000);
const DIMS = env('VEC_DIMS', 256);
const M = env('VEC_M', VECTOR_DEFAULTS.m);
const EFC = env('VEC_EFC', VECTOR_DEFAULTS.efConstruction);
const QUERIES = env('VEC_QUERIES', 500);
const EFS = (process.env.VEC_EF ?? '32,64,128,200,400,800').split(',').map(Number);

/** mulberry32: a small seeded PRNG, so every run sees the same corpus. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(42);
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

function vocabulary(size: number): string[] {
  const syllables = 'ka lo mi ne ru sa to vi be da fe go hu ji pe qua ri so tu ze bra cle dro fli gri plo stra'.split(' ');
  const words = new Set<string>();
  while (words.size < size) words.add(Array.from({ length: int(2, 4) }, () => syllables[int(0, syllables.length - 1)]).join(''));
  return [...words];
}

/** Word of rank r drawn with probability ∝ 1 / (r + 2.7), Zipf-Mandelbrot as in English text. */
function zipfSampler(words: string[]): () => string {
  const cdf = new Float64Array(words.length);
  let sum = 0;
  words.forEach((_, r) => (cdf[r] = sum += 1 / (r + 2.7)));
  return () => {
    const x = rand() * sum;
    let lo = 0,
      hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

function latency(queries: Float32Array[], run: (q: Float32Array) => unknown): string {
  const times = queries
    .map((q) => {
      const t = performance.now();
      run(q);
      return performance.now() - t;
    })
    .sort((a, b) => a - b);
  return `${percentile(times, 0.5).toFixed(2)} / ${percentile(times, 0.99).toFixed(2)}`;
}

const rssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

async function main() {
  const word = zipfSampler(vocabulary(4000));
  const text = (lo: number, hi: number) => Array.from({ length: int(lo, hi) }, word).join(' ');
  const embedder = hashingEmbedder(DIMS);
  let t = performance.now();
  const vectors = await embedder.embed(Array.from({ length: N }, () => text(40, 200)));
  const short = await embedder.embed(Array.from({ length: QUERIES }, () => text(3, 8)));
  const passages = await embedder.embed(Array.from({ length: QUERIES }, () => text(40, 200)));
  console.log(`corpus: ${N} passages, ${DIMS} dims, embedded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // Built first: freed exact stores would lend it their pages and hide its RSS.
  const before = rssMb();
  t = performance.now();
  const hnsw = new HnswIndex({ dimensions: DIMS, m: M, efConstruction: EFC, efSearch: 64, initialCapacity: N });
  vectors.forEach((v, id) => hnsw.add(id, v));
  const buildS = (performance.now() - t) / 1000;
  console.log(
    `\nHNSW m=${M} efConstruction=${EFC}: built in ${buildS.toFixed(1)} s (${Math.round(N / buildS)} adds/s), RSS +${(rssMb() - before).toFixed(0)} MB`,
  );

  const store = new ExactStore(DIMS);
  vectors.forEach((v, id) => store.add(id, v));
  // Each query's exact answer is computed once, for all efSearch values.
  const answers = new Map<Float32Array, ReturnType<ExactStore['search']>>();
  const exact = { search: (q: Float32Array, k: number) => answers.get(q) ?? answers.set(q, store.search(q, k)).get(q)! };
  console.log('\nexact scan, k=10, p50 / p99 ms, short queries | passages:');
  for (const n of [...new Set([5000, 10_000, 20_000, 50_000, N])].filter((n) => n <= N)) {
    const prefix = new ExactStore(DIMS);
    for (let id = 0; id < n; id++) prefix.add(id, vectors[id]);
    const run = (q: Float32Array) => prefix.search(q, 10);
    console.log(`  n=${n}: ${latency(short.slice(0, 200), run)} | ${latency(passages.slice(0, 200), run)}`);
  }

  const acceptAll = () => true;
  console.log('| efSearch | recall@10 short | recall@10 passage | k=10 p50/p99 ms | k=10 filtered p50/p99 | k=100 p50/p99 |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const ef of EFS) {
    hnsw.setEf(ef);
    const cells = [
      measureRecall(hnsw, exact, short, 10).toFixed(3),
      measureRecall(hnsw, exact, passages, 10).toFixed(3),
      latency(short, (q) => hnsw.search(q, 10)),
      latency(short, (q) => hnsw.search(q, 10, acceptAll)),
      latency(short, (q) => hnsw.search(q, 100)),
    ];
    console.log(`| ${ef} | ${cells.join(' | ')} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
