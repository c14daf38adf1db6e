/**
 * Hybrid ranking (DECISIONS): the full-text and vector candidate lists are fused by reciprocal rank
 * fusion, k = 60 (Cormack et al. 2009): an object's fused score is the sum over lists of
 * weight / (k + rank). The vector list's weight is the embedder's `fusionWeight`, so a weak
 * built-in embedder cannot drag hybrid search below full text; a real model takes weight 1.
 */
export const RRF_K = 60;

export interface Ranked {
  /** What is ranked: an object's seq, or a passage's id. */
  key: number;
  /** The passage that placed it in this list. */
  chunkId: number | null;
}

export interface Fused {
  key: number;
  fused: number;
  chunkId: number | null;
}

export function reciprocalRankFusion(lists: { items: readonly Ranked[]; weight: number }[], k = RRF_K): Fused[] {
  const by = new Map<number, Fused>();
  for (const { items, weight } of lists) {
    items.forEach((item, i) => {
      const add = weight / (k + i + 1);
      const f = by.get(item.key);
      if (f) {
        f.fused += add;
        f.chunkId ??= item.chunkId;
      } else {
        by.set(item.key, { key: item.key, fused: add, chunkId: item.chunkId });
      }
    });
  }
  return [...by.values()].sort((a, b) => b.fused - a.fused || a.key - b.key);
}

/**
 * Port: re-scores the best fused candidates (`re_ranked`). Gets the query and each candidate's
 * title and best passage; returns a relevance in [0, 1] per candidate. A cross-encoder reached
 * through the model gateway can implement it; the built-in one is below.
 */
export interface Reranker {
  readonly id: string;
  rerank(query: string, candidates: readonly { title: string; text: string }[]): Promise<number[]>;
}
