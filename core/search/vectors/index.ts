/**
 * The search service's vector index: exact below a size, HNSW (approximate) from then on.
 *
 * Defaults, from `bench/search/vectors.ts`: 100,000 passages of 40-200 words (Zipf-like over 4,000 words)
 * embedded by hashingEmbedder(256), ~73 nonzeros each; 500 short queries (3-8 words) and 500
 * passage queries; shared 2-core machine under load, so p99s are noisy. Recall is deterministic.
 *
 *   exact scan k=10, p50/p99 ms (short | passage): 20k 1.2/22 | 2.7/8.6; 50k 6.2/16 | 7.6/40;
 *   100k 12-18/21-115 | 13-14/20-42 (three runs). Recall 1.
 *
 *   HNSW, recall@10 short/passage and k=10 p50 ms at efSearch 200 / 400 / 800 / 1600:
 *   m=16 efC=100  build 42 s   .32/.68 0.7 | .43/.80 1.3 | .56/.89 2.3 | -
 *   m=16 efC=200  build 106 s  .40/.71 1.0 | .53/.83 1.6 | .66/.91 2.7 | .77/.96 9.1
 *   m=24 efC=200  build 115 s  .51/.81 1.1 | .65/.91 1.9 | .77/.96 3.6 | .86/.99 6.2
 *   m=32 efC=200  build 157 s  .58/.86 1.2 | .70/.95 2.3 | .81/.98 4.4 | .90/.99 7.0
 *   m=48 efC=400  build 390 s  .72/.93 2.0 | .84/.98 3.6 | .91/1.0 6.2 | .96/1.0 10.7
 *   (m=32 efC=200 at efSearch 32/64/128: .26/.47, .37/.63, .50/.79; p99 at 800: 13 ms; k=100 at
 *   800: 4.0/8.6 ms; a filter callback adds ~10%. HNSW RSS +110-134 MB for 100k x 256.)
 *
 * Hashing vectors are near-random (no topics, collisions), the worst case for HNSW: short queries
 * only pass 0.95 at efSearch >= 1600 with m=48, no faster than the exact scan. Hence exact up to
 * 50,000 (recall 1, p50 <= ~8 ms), and past it m=32, efConstruction=200, efSearch=800: passage-
 * like queries 0.978, short 0.81, p50 ~4.4 ms. Clustered or random 64-d vectors (the tests) reach
 * 0.95 at efSearch 64-128, so a real model embedder can pass a far smaller efSearch.
 * The switch builds the graph synchronously, blocking the event loop: at ~640 adds/s (the 100k
 * average) about 60-80 s for 50,000 x 256.
 */
import { ExactStore } from './exact';
import { HnswIndex } from './hnsw';
import { SparseIndex } from './sparse';

export { exactTopK } from './exact';
export type { VectorHit, VectorIndex } from './types';
import type { VectorIndex } from './types';

export interface VectorIndexOptions {
  dimensions: number;
  /** Exact search while the index holds fewer vectors than this. */
  exactBelow?: number;
  /** HNSW links per node. */
  m?: number;
  efConstruction?: number;
  /** HNSW beam width at query time (raised to k when k is larger). */
  efSearch?: number;
  /** The vectors are mostly zeros (the built-in embedder's): an exact inverted index serves every size. */
  sparse?: boolean;
}

export const VECTOR_DEFAULTS = { exactBelow: 50_000, m: 32, efConstruction: 200, efSearch: 800 } as const;

const MAX_ID = 2 ** 32 - 1;

export function createVectorIndex(opts: VectorIndexOptions): VectorIndex {
  const { dimensions } = opts;
  if (!Number.isInteger(dimensions) || dimensions <= 0)
    throw new Error(`vector index: dimensions must be a positive integer, got ${dimensions}`);
  if (opts.sparse) return new SparseIndex(dimensions);
  const exactBelow = opts.exactBelow ?? VECTOR_DEFAULTS.exactBelow;
  const hnswOptions = {
    dimensions,
    m: opts.m ?? VECTOR_DEFAULTS.m,
    efConstruction: opts.efConstruction ?? VECTOR_DEFAULTS.efConstruction,
    efSearch: opts.efSearch ?? VECTOR_DEFAULTS.efSearch,
  };
  let exact: ExactStore | undefined = new ExactStore(dimensions, Math.min(1024, Math.max(1, exactBelow)));
  let hnsw: HnswIndex | undefined;

  const checkVector = (what: string, v: Float32Array) => {
    if (v.length !== dimensions) throw new Error(`vector index: ${what} has ${v.length} dimensions, expected ${dimensions}`);
  };

  const switchToHnsw = (store: ExactStore) => {
    hnsw = new HnswIndex({ ...hnswOptions, initialCapacity: 2 * store.size });
    for (const { id, vector } of store.entries()) hnsw.add(id, vector);
    exact = undefined;
  };

  return {
    get size() {
      return (exact ?? hnsw!).size;
    },
    get approximate() {
      return hnsw !== undefined;
    },
    get memoryBytes() {
      return (exact ?? hnsw!).memoryBytes;
    },
    add(id, vector) {
      if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new Error(`vector index: id must be an integer in [0, 2^32), got ${id}`);
      checkVector('vector', vector);
      if (exact) {
        exact.add(id, vector);
        if (exact.size >= exactBelow) switchToHnsw(exact);
      } else {
        hnsw!.add(id, vector);
      }
    },
    remove(id) {
      (exact ?? hnsw!).remove(id);
    },
    search(query, k, accept) {
      checkVector('query', query);
      return (exact ?? hnsw!).search(query, k, accept);
    },
  };
}
