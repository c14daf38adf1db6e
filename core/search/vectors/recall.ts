/**
 * Recall@k of an approximate index against exact search over the same vectors: for each query, the
 * share of the exact top k that the approximate top k found, averaged over the queries. A hit that
 * is not in the exact list but scores at least the exact k-th similarity counts too (a tie at the
 * cut-off is not a miss), as in ann-benchmarks.
 */
import type { VectorIndex } from './types';

type Searchable = Pick<VectorIndex, 'search'>;

/** Float32 sums in hnswlib and float64 sums here differ in the last bits. */
const TIE = 1e-5;

export function measureRecall(index: Searchable, exact: Searchable, queries: readonly Float32Array[], k: number): number {
  if (!queries.length) return 1;
  let total = 0;
  for (const q of queries) {
    const truth = exact.search(q, k);
    if (!truth.length) {
      total += 1;
      continue;
    }
    const ids = new Set(truth.map((h) => h.id));
    const cutoff = truth[truth.length - 1].similarity - TIE;
    const found = index.search(q, k).filter((h) => ids.has(h.id) || h.similarity >= cutoff).length;
    total += Math.min(found, truth.length) / truth.length;
  }
  return total / queries.length;
}
