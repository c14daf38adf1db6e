/**
 * What the in-memory indexes hold, in bytes, for the `platform_search_index_memory_bytes` gauge.
 * Nothing in Node measures one structure's heap, so each index adds up what it holds: the bytes of
 * its typed arrays exactly (the postings, the vectors; hnswlib's native graph from its own layout,
 * hnsw.ts), and everything else (Maps, Sets, arrays of numbers, small objects, strings) from the
 * sizes below, V8's layouts on 64-bit Node (8-byte slots, no pointer compression) at average
 * load. Garbage not yet collected (arrays just outgrown) is not counted. Checked against the heap
 * (after a forced GC, Node 20, 20,000 passages): BM25 within 6% (60 tokens a passage, 5,000 to
 * 200,000 distinct terms), the exact and sparse vector stores within 1%, HNSW within 15% of the
 * RSS it adds (64 dimensions). Good for trends and capacity, not for exact heap accounting.
 */
export const BYTES = {
  /** A Map entry (key, value and chain slots) and its share of the bucket table, at half load. */
  mapEntry: 40,
  /** A Set entry (key and chain slots) and its share of the bucket table. */
  setEntry: 32,
  /** One element of a JS array of numbers or booleans (a tagged slot). */
  slot: 8,
  /** A JS array's own object and its elements' header, besides its slots. */
  array: 48,
  /** A typed array's object and its ArrayBuffer's, besides its bytes. */
  typedArray: 150,
} as const;

/** A plain object of `fields` properties: its header (map, properties, elements) and one slot each. */
export const objectBytes = (fields: number): number => 24 + 8 * fields;

/** A string: its header (map, hash, length) and its characters (one byte each for Latin-1), to 8 bytes. */
export const stringBytes = (s: string): number => 16 + ((s.length + 7) & ~7);
