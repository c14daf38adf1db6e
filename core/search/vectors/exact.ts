/**
 * Exact (brute-force) nearest neighbours by dot product, which is cosine similarity for the
 * L2-normalised vectors the embedders give. `ExactStore` keeps every vector in one contiguous
 * Float32Array (capacity doubles as it fills) so a scan walks memory in order; `exactTopK` ranks
 * any list of candidates, for filtered fallbacks. Both keep the best k in a bounded min-heap:
 * O(n log k) instead of sorting all n.
 */
import type { VectorHit } from './types';
import { BYTES } from '../memory';

type Score = (data: Float32Array, offset: number) => number;

/**
 * How to score stored vectors against `q`: over all dimensions, or, when most of `q` is zero, over
 * its nonzero ones only. Queries of the built-in hashing embedder hold one nonzero per word, so a
 * short query is a few reads per vector instead of hundreds.
 */
function scorer(q: Float32Array): Score {
  const nonzero: number[] = [];
  for (let i = 0; i < q.length; i++) if (q[i] !== 0) nonzero.push(i);
  if (nonzero.length * 2 < q.length) {
    const at = Int32Array.from(nonzero);
    const w = Float64Array.from(nonzero, (i) => q[i]);
    return (data, offset) => {
      let s = 0;
      for (let j = 0; j < at.length; j++) s += w[j] * data[offset + at[j]];
      return s;
    };
  }
  const d = q.length;
  return (data, offset) => {
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    let i = 0;
    // Four independent sums let the CPU overlap the multiply-adds.
    for (; i + 3 < d; i += 4) {
      s0 += q[i] * data[offset + i];
      s1 += q[i + 1] * data[offset + i + 1];
      s2 += q[i + 2] * data[offset + i + 2];
      s3 += q[i + 3] * data[offset + i + 3];
    }
    for (; i < d; i++) s0 += q[i] * data[offset + i];
    return s0 + s1 + s2 + s3;
  };
}

/** The k best (highest similarity) of what is offered; the worst kept one sits at the root. */
class TopK {
  private readonly sims: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.sims = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  offer(id: number, sim: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.sims[parent] <= sim) break;
        this.sims[i] = this.sims[parent]!;
        this.ids[i] = this.ids[parent]!;
        i = parent;
      }
      this.sims[i] = sim;
      this.ids[i] = id;
    } else if (this.k > 0 && sim > this.sims[0]) {
      this.siftDown(id, sim, this.n);
    }
  }

  /** Best first. Empties the heap. */
  drain(): VectorHit[] {
    const out = new Array<VectorHit>(this.n);
    while (this.n > 0) {
      const last = --this.n;
      out[last] = { id: this.ids[0], similarity: this.sims[0] };
      this.siftDown(this.ids[last], this.sims[last], last);
    }
    return out;
  }

  /** Puts (id, sim) at the root of a heap of `size` entries and moves it down to its place. */
  private siftDown(id: number, sim: number, size: number): void {
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && this.sims[child + 1] < this.sims[child]) child++;
      if (this.sims[child] >= sim) break;
      this.sims[i] = this.sims[child]!;
      this.ids[i] = this.ids[child]!;
      i = child;
    }
    this.sims[i] = sim;
    this.ids[i] = id;
  }
}

/** The k candidates most similar to `query`, best first. */
export function exactTopK(query: Float32Array, candidates: Iterable<{ id: number; vector: Float32Array }>, k: number): VectorHit[] {
  const top = new TopK(Math.max(0, Math.floor(k)));
  const score = scorer(query);
  for (const c of candidates) top.offer(c.id, score(c.vector, 0));
  return top.drain();
}

export class ExactStore {
  private data: Float32Array;
  private readonly ids: number[] = [];
  private readonly slotOf = new Map<number, number>();

  constructor(
    readonly dimensions: number,
    initialCapacity = 1024,
  ) {
    this.data = new Float32Array(Math.max(1, initialCapacity) * dimensions);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The vectors' array (its spare capacity included), and each id's slot and Map entry. */
  get memoryBytes(): number {
    return this.data.byteLength + BYTES.typedArray + this.ids.length * (BYTES.slot + BYTES.mapEntry);
  }

  /** Re-adding an id overwrites its vector. */
  add(id: number, vector: Float32Array): void {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * this.dimensions > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.ids.push(id);
      this.slotOf.set(id, slot);
    }
    this.data.set(vector, slot * this.dimensions);
  }

  /** Moves the last vector into the freed slot, so the store stays dense. */
  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    const lastId = this.ids.pop()!;
    this.slotOf.delete(id);
    if (slot !== last) {
      const d = this.dimensions;
      this.data.copyWithin(slot * d, last * d, (last + 1) * d);
      this.ids[slot] = lastId;
      this.slotOf.set(lastId, slot);
    }
  }

  search(query: Float32Array, k: number, accept?: (id: number) => boolean): VectorHit[] {
    const top = new TopK(Math.max(0, Math.min(Math.floor(k), this.ids.length)));
    const d = this.dimensions;
    const score = scorer(query);
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (accept && !accept(id)) continue;
      top.offer(id, score(this.data, slot * d));
    }
    return top.drain();
  }

  /** Every stored (id, vector); the vectors are views into the store, valid until it changes. */
  *entries(): IterableIterator<{ id: number; vector: Float32Array }> {
    const d = this.dimensions;
    for (let slot = 0; slot < this.ids.length; slot++) {
      yield { id: this.ids[slot], vector: this.data.subarray(slot * d, (slot + 1) * d) };
    }
  }
}
