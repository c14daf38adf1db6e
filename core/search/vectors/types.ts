/** What every vector index of the search service answers (exact, HNSW, sparse). */
export interface VectorHit {
  id: number;
  similarity: number;
}

/** Nearest neighbours of L2-normalised vectors by cosine similarity, keyed by chunk row id. */
export interface VectorIndex {
  readonly size: number;
  /** True once the index has switched to HNSW (it never switches back). */
  readonly approximate: boolean;
  /** An estimate of the memory it holds, native (hnswlib) included (core/search/memory.ts). */
  readonly memoryBytes: number;
  /** Re-adding an id replaces its vector. Ids are integers in [0, 2^32). */
  add(id: number, vector: Float32Array): void;
  /** Unknown ids are ignored. */
  remove(id: number): void;
  /**
   * The k nearest ids that `accept` lets through, best first. Under HNSW a filter that rejects most
   * ids makes the search visit many more nodes (it runs until it has found enough accepted ones);
   * for a small known candidate set, `exactTopK` is cheaper.
   */
  search(query: Float32Array, k: number, accept?: (id: number) => boolean): VectorHit[];
}
