import { doubled } from '../grow';
import { BYTES } from '../memory';
import type { VectorHit, VectorIndex } from './types';

/**
 * Exact nearest neighbours for sparse vectors (the built-in embedder's: ~70 nonzero of 1,024
 * dimensions), through an inverted index: dimension → (vector, value) postings. A query touches only
 * the postings of its own nonzero dimensions, so search costs what those postings hold, not the
 * collection's size, and the result is exact (recall 1) at any size, where HNSW over such
 * near-random vectors is both slow and imprecise (core/search/vectors/index.ts).
 */
export class SparseIndex implements VectorIndex {
  readonly approximate = false;
  /** Per dimension, growable typed arrays: 8 bytes a posting. */
  private readonly postings: { docs: Int32Array; values: Float32Array; n: number }[];
  private readonly ids: number[] = [];
  private readonly alive: boolean[] = [];
  private readonly docOf = new Map<number, number>();
  private scratch = new Float64Array(1024);

  constructor(private readonly dimensions: number) {
    this.postings = Array.from({ length: dimensions }, () => ({ docs: new Int32Array(16), values: new Float32Array(16), n: 0 }));
  }

  get size(): number {
    return this.docOf.size;
  }

  /** The postings' arrays (spare capacity included), each vector's slots and Map entry, the scratch scores. */
  get memoryBytes(): number {
    let postings = 0;
    for (const p of this.postings) postings += p.docs.byteLength + p.values.byteLength + 2 * BYTES.typedArray;
    return postings + this.ids.length * 2 * BYTES.slot + this.docOf.size * BYTES.mapEntry + this.scratch.byteLength;
  }

  add(id: number, vector: Float32Array): void {
    this.check(vector);
    this.remove(id);
    const doc = this.ids.length;
    this.ids.push(id);
    this.alive.push(true);
    this.docOf.set(id, doc);
    for (let d = 0; d < vector.length; d++) {
      const v = vector[d];
      if (v === 0) continue;
      const p = this.postings[d];
      if (p.n === p.docs.length) {
        p.docs = doubled(p.docs);
        p.values = doubled(p.values);
      }
      p.docs[p.n] = doc;
      p.values[p.n] = v;
      p.n++;
    }
  }

  remove(id: number): void {
    const doc = this.docOf.get(id);
    if (doc === undefined) return;
    this.alive[doc] = false;
    this.docOf.delete(id);
  }

  search(query: Float32Array, k: number, accept?: (id: number) => boolean): VectorHit[] {
    this.check(query);
    if (k <= 0) return [];
    if (this.scratch.length < this.ids.length) this.scratch = new Float64Array(Math.max(this.ids.length, this.scratch.length * 2));
    const acc = this.scratch;
    const touched: number[] = [];
    for (let d = 0; d < query.length; d++) {
      const q = query[d];
      if (q === 0) continue;
      const { docs, values, n } = this.postings[d];
      for (let i = 0; i < n; i++) {
        const doc = docs[i];
        if (acc[doc] === 0) touched.push(doc);
        acc[doc] += q * values[i];
      }
    }
    // Keep the best k as we go (a min-heap on similarity); `accept` is asked only of a passage
    // that would enter it, so a query touching most of the collection allocates nothing per passage.
    const heap: VectorHit[] = [];
    for (const doc of touched) {
      const similarity = acc[doc];
      acc[doc] = 0;
      if (!this.alive[doc] || (heap.length === k && similarity <= heap[0].similarity)) continue;
      const id = this.ids[doc];
      if (accept && !accept(id)) continue;
      if (heap.length < k) push(heap, { id, similarity });
      else replaceTop(heap, { id, similarity });
    }
    return heap.sort((a, b) => b.similarity - a.similarity || a.id - b.id);
  }

  private check(v: Float32Array): void {
    if (v.length !== this.dimensions) throw new Error(`vector index: vector has ${v.length} dimensions, expected ${this.dimensions}`);
  }
}

const less = (a: VectorHit, b: VectorHit) => a.similarity < b.similarity || (a.similarity === b.similarity && a.id > b.id);

function push(heap: VectorHit[], hit: VectorHit): void {
  heap.push(hit);
  for (let i = heap.length - 1; i > 0;) {
    const parent = (i - 1) >> 1;
    if (!less(heap[i], heap[parent])) break;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

function replaceTop(heap: VectorHit[], hit: VectorHit): void {
  heap[0] = hit;
  for (let i = 0; ;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && less(heap[l], heap[m])) m = l;
    if (r < heap.length && less(heap[r], heap[m])) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m], heap[i]];
    i = m;
  }
}
