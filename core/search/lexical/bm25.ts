import { doubled } from '../grow';
import { BYTES, objectBytes, stringBytes } from '../memory';

/**
 * An in-memory BM25 index over one tenant's passages: term → postings (passage, weighted term
 * frequency), scored term at a time into a reused accumulator. It ranks exactly as SQLite FTS5's
 * bm25() with column weights (title 2, text 1; k1 = 1.2, b = 0.75; idf = ln((N - n + 0.5) /
 * (n + 0.5)), at least 1e-6; the length of a passage is its title's and text's token count), over
 * the same tokens (tokenize.ts), but 20-50x faster than FTS5 on long OR queries: a SciFact claim
 * touches half the corpus, and FTS5 spends most of its time per matching row, not per posting.
 *
 * Passages are removed by tombstone (their object was deleted or changed); the index is rebuilt by
 * its owner when tombstones pile up.
 */
const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 2;

/** Growable typed arrays: 6 bytes a posting, not 16 as two arrays of numbers would take. */
interface Postings {
  docs: Int32Array;
  tfs: Uint16Array;
  n: number;
}

/** Adds a posting; returns the bytes its arrays grew by. */
function append(p: Postings, doc: number, tf: number): number {
  let grown = 0;
  if (p.n === p.docs.length) {
    grown = p.docs.byteLength + p.tfs.byteLength;
    p.docs = doubled(p.docs);
    p.tfs = doubled(p.tfs);
  }
  p.docs[p.n] = doc;
  p.tfs[p.n] = Math.min(tf, 65535);
  p.n++;
  return grown;
}

/** A new term's cost: its Map entry, its string, its postings object and two typed arrays of 2. */
const termBytes = (term: string) => BYTES.mapEntry + stringBytes(term) + objectBytes(3) + 2 * BYTES.typedArray + 2 * 4 + 2 * 2;
/** Each passage's slots in chunkIds, seqs, lengths and alive, and in its object's list. */
const PASSAGE_BYTES = 5 * BYTES.slot;
/** Each object's entry in bySeq and its list. */
const OBJECT_BYTES = BYTES.mapEntry + BYTES.array;

export interface PassageScore {
  /** Passage (chunk) id. */
  chunkId: number;
  seq: number;
  score: number;
}

export class Bm25Index {
  private readonly terms = new Map<string, Postings>();
  private readonly chunkIds: number[] = [];
  private readonly seqs: number[] = [];
  private readonly lengths: number[] = [];
  private readonly alive: boolean[] = [];
  private readonly bySeq = new Map<number, number[]>();
  private totalLength = 0;
  private live = 0;
  private dead = 0;
  private scratch = new Float64Array(1024);
  /** The terms' structures (memory.ts), kept up to date as they grow. */
  private termsBytes = 0;

  /** Live passages. */
  get size(): number {
    return this.live;
  }

  /** Objects with live passages. */
  get objects(): number {
    return this.bySeq.size;
  }

  /** An estimate of the memory the index holds (memory.ts); removed passages count until a rebuild. */
  get memoryBytes(): number {
    return (
      this.termsBytes + this.chunkIds.length * PASSAGE_BYTES + this.bySeq.size * OBJECT_BYTES + this.scratch.byteLength + BYTES.typedArray
    );
  }

  /** Share of postings that belong to removed passages. */
  get deadShare(): number {
    return this.dead / Math.max(1, this.live + this.dead);
  }

  add(chunkId: number, seq: number, titleTokens: readonly string[], textTokens: readonly string[]): void {
    const doc = this.chunkIds.length;
    this.chunkIds.push(chunkId);
    this.seqs.push(seq);
    this.lengths.push(titleTokens.length + textTokens.length);
    this.alive.push(true);
    this.totalLength += titleTokens.length + textTokens.length;
    this.live++;
    const tf = new Map<string, number>();
    for (const t of titleTokens) tf.set(t, (tf.get(t) ?? 0) + TITLE_WEIGHT);
    for (const t of textTokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, f] of tf) {
      let p = this.terms.get(term);
      if (!p) {
        this.terms.set(term, (p = { docs: new Int32Array(2), tfs: new Uint16Array(2), n: 0 }));
        this.termsBytes += termBytes(term);
      }
      this.termsBytes += append(p, doc, f);
    }
    const list = this.bySeq.get(seq);
    if (list) list.push(doc);
    else this.bySeq.set(seq, [doc]);
  }

  /** Forgets every passage of an object. */
  removeObject(seq: number): void {
    for (const doc of this.bySeq.get(seq) ?? []) {
      if (!this.alive[doc]) continue;
      this.alive[doc] = false;
      this.totalLength -= this.lengths[doc];
      this.live--;
      this.dead++;
    }
    this.bySeq.delete(seq);
  }

  /** Every live passage containing one of `queryTerms`, with its BM25 score (unsorted). */
  search(queryTerms: readonly string[], accept: (seq: number) => boolean): PassageScore[] {
    const n = this.chunkIds.length;
    if (this.scratch.length < n) this.scratch = new Float64Array(Math.max(n, this.scratch.length * 2));
    const acc = this.scratch;
    const touched: number[] = [];
    const avg = this.totalLength / Math.max(1, this.live);
    for (const term of new Set(queryTerms)) {
      const p = this.terms.get(term);
      if (!p) continue;
      const df = p.n;
      const { docs, tfs } = p;
      const idf = Math.max(1e-6, Math.log((this.live + this.dead - df + 0.5) / (df + 0.5)));
      for (let i = 0; i < df; i++) {
        const doc = docs[i];
        const tf = tfs[i];
        if (acc[doc] === 0) touched.push(doc);
        acc[doc] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[doc]) / avg));
      }
    }
    const out: PassageScore[] = [];
    for (const doc of touched) {
      const score = acc[doc];
      acc[doc] = 0;
      if (this.alive[doc] && accept(this.seqs[doc])) out.push({ chunkId: this.chunkIds[doc], seq: this.seqs[doc], score });
    }
    return out;
  }
}
