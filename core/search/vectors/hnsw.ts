/**
 * Approximate nearest neighbours: a thin layer over hnswlib-node's HierarchicalNSW. Space 'ip'
 * (distance = 1 - dot product) because the vectors are already L2-normalised: similarity is
 * 1 - distance, the same number the exact store gives ('cosine' would normalise every vector again,
 * and turn the zero vector of an empty text into something else). Capacity doubles as it fills;
 * removed ids are marked deleted and their slots reused by later adds. Single-threaded: hnswlib's
 * addPoint and searchKnn run synchronously on the calling thread.
 */
import { HierarchicalNSW } from 'hnswlib-node';
import type { VectorHit } from './types';
import { BYTES } from '../memory';

export interface HnswOptions {
  dimensions: number;
  m: number;
  efConstruction: number;
  efSearch: number;
  initialCapacity?: number;
}

/** Fixed, so the same adds in the same order build the same graph (and tests are repeatable). */
const SEED = 100;

export class HnswIndex {
  private readonly index: HierarchicalNSW;
  private readonly live = new Set<number>();
  /**
   * Ids marked deleted, some of which may still own a slot. hnswlib refuses a plain addPoint for a
   * deleted label, and a replacing addPoint would give it a second slot, so a re-added one is
   * unmarked and updated in place instead; if its slot went to another id meanwhile, it is new.
   */
  private readonly tombstones = new Set<number>();
  /** Slots of deleted ids that the next adds can take. */
  private vacant = 0;

  constructor(private readonly opts: HnswOptions) {
    this.index = new HierarchicalNSW('ip', opts.dimensions);
    this.index.initIndex({
      maxElements: Math.max(16, opts.initialCapacity ?? 1024),
      m: opts.m,
      efConstruction: opts.efConstruction,
      randomSeed: SEED,
      allowReplaceDeleted: true,
    });
    // hnswlib searches with max(ef, k), so a large k still gets a wide enough beam.
    this.index.setEf(opts.efSearch);
  }

  get size(): number {
    return this.live.size;
  }

  /**
   * hnswlib's memory, from its layout (hnswalg.h): per slot of its capacity, the vector (4 bytes a
   * dimension), the level-0 links (2m ids and a count), the label, a link-list mutex (40 bytes),
   * the level, a pointer to the upper links and a visited mark; per element, upper links (m ids and
   * a count per level, 1/(m - 1) levels on average) and a label-lookup entry; 65,536 label mutexes
   * per index. Then our live and deleted ids' Set entries.
   */
  get memoryBytes(): number {
    const { dimensions: d, m } = this.opts;
    const slots = this.index.getMaxElements();
    const count = this.index.getCurrentCount();
    const perSlot = d * 4 + (2 * m * 4 + 4) + 8 + 40 + 4 + 8 + 2;
    const perElement = (m * 4 + 4) / (m - 1) + BYTES.mapEntry;
    return slots * perSlot + count * perElement + 65_536 * 40 + (this.live.size + this.tombstones.size) * BYTES.setEntry;
  }

  add(id: number, vector: Float32Array): void {
    const point = Array.from(vector);
    if (this.live.has(id) || (this.tombstones.delete(id) && this.revive(id))) {
      this.index.addPoint(point, id);
    } else {
      if (this.vacant > 0) this.vacant--;
      else if (this.index.getCurrentCount() >= this.index.getMaxElements()) this.index.resizeIndex(this.index.getMaxElements() * 2);
      this.index.addPoint(point, id, true);
      // Every deleted slot has been taken, so no remaining tombstone still owns one.
      if (this.vacant === 0) this.tombstones.clear();
    }
    this.live.add(id);
  }

  remove(id: number): void {
    if (!this.live.delete(id)) return;
    this.index.markDelete(id);
    this.tombstones.add(id);
    this.vacant++;
  }

  search(query: Float32Array, k: number, accept?: (id: number) => boolean): VectorHit[] {
    const n = Math.min(Math.floor(k), this.live.size);
    if (n <= 0) return [];
    const point = Array.from(query);
    const { distances, neighbors } = accept ? this.index.searchKnn(point, n, accept) : this.index.searchKnn(point, n);
    return neighbors.map((id, i) => ({ id, similarity: 1 - distances[i] }));
  }

  /** Beam width for later searches (benchmarks compare several on one graph). */
  setEf(efSearch: number): void {
    this.index.setEf(efSearch);
  }

  /** Whether `id` still owns its slot (unmarked now); false if the slot went to another id. */
  private revive(id: number): boolean {
    try {
      this.index.unmarkDelete(id);
    } catch {
      return false; // "Label not found": its slot was reused.
    }
    this.vacant--;
    return true;
  }
}
