import { hashingEmbedder } from '../../../core/shared/text/embedder';
import { createVectorIndex, exactTopK, type VectorIndex } from '../../../core/search/vectors';
import { SparseIndex } from '../../../core/search/vectors/sparse';
import { measureRecall } from '../../../core/search/vectors/recall';

/** mulberry32: seeded, so every run sees the same vectors. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function normalised(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const randomVectors = (rand: () => number, n: number, dims: number) =>
  Array.from({ length: n }, () => normalised(Float32Array.from({ length: dims }, () => gaussian(rand))));

/** `n` points around `clusters` random centres (spread 0.3 per axis relative to a unit centre). */
function clusteredVectors(rand: () => number, n: number, dims: number, clusters: number): Float32Array[] {
  const centres = randomVectors(rand, clusters, dims);
  return Array.from({ length: n }, (_, i) => {
    const c = centres[i % clusters];
    return normalised(c.map((x) => x + (0.3 / Math.sqrt(dims)) * gaussian(rand)));
  });
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

/** The naive answer: score everything, sort everything. */
const naive = (vectors: Float32Array[], q: Float32Array, k: number, accept = (_id: number) => true) =>
  vectors
    .map((v, id) => ({ id, similarity: dot(q, v) }))
    .filter((h) => accept(h.id))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);

const filled = (index: VectorIndex, vectors: Float32Array[]) => {
  vectors.forEach((v, id) => index.add(id, v));
  return index;
};

describe('the exact vector index', () => {
  const rand = prng(1);
  const vectors = randomVectors(rand, 2000, 32);
  const queries = randomVectors(rand, 20, 32);
  const index = filled(createVectorIndex({ dimensions: 32 }), vectors);

  it('ranks like a full sort of every similarity, best first', () => {
    expect(index.approximate).toBe(false);
    expect(index.size).toBe(2000);
    for (const q of queries) {
      const truth = naive(vectors, q, 10);
      const hits = index.search(q, 10);
      expect(hits.map((h) => h.id)).toEqual(truth.map((h) => h.id));
      hits.forEach((h, i) => expect(h.similarity).toBeCloseTo(truth[i].similarity, 5));
    }
  });

  it('ranks a mostly-zero query (a few words) like a full sort too', () => {
    const sparse = new Float32Array(32);
    sparse[3] = 0.6;
    sparse[17] = -0.8;
    expect(index.search(sparse, 10).map((h) => h.id)).toEqual(naive(vectors, sparse, 10).map((h) => h.id));
  });

  it('returns only ids the filter accepts', () => {
    const even = (id: number) => id % 2 === 0;
    const hits = index.search(queries[0], 25, even);
    expect(hits).toHaveLength(25);
    expect(hits.map((h) => h.id)).toEqual(naive(vectors, queries[0], 25, even).map((h) => h.id));
  });

  it('returns fewer than k when fewer are stored, and nothing for k = 0', () => {
    const small = filled(createVectorIndex({ dimensions: 32 }), vectors.slice(0, 3));
    expect(small.search(queries[0], 10)).toHaveLength(3);
    expect(small.search(queries[0], 0)).toEqual([]);
  });

  it('forgets a removed id and keeps the others findable', () => {
    const idx = filled(createVectorIndex({ dimensions: 32 }), vectors.slice(0, 100));
    const best = idx.search(vectors[7], 1)[0];
    expect(best.id).toBe(7);
    idx.remove(7);
    idx.remove(7);
    expect(idx.size).toBe(99);
    expect(idx.search(vectors[7], 100).map((h) => h.id)).not.toContain(7);
    // The last vector was moved into 7's slot: it must still be found as itself.
    expect(idx.search(vectors[99], 1)[0]).toMatchObject({ id: 99 });
  });

  it('replaces the vector of a re-added id', () => {
    const idx = filled(createVectorIndex({ dimensions: 32 }), vectors.slice(0, 100));
    idx.add(5, vectors[500]);
    expect(idx.size).toBe(100);
    expect(idx.search(vectors[500], 1)[0]).toMatchObject({ id: 5 });
    expect(idx.search(vectors[5], 1)[0].id).not.toBe(5);
  });

  it('throws on a vector or query of the wrong size', () => {
    expect(() => index.add(1, new Float32Array(31))).toThrow('vector has 31 dimensions, expected 32');
    expect(() => index.search(new Float32Array(64), 10)).toThrow('query has 64 dimensions, expected 32');
    expect(() => index.add(-1, vectors[0])).toThrow('id must be an integer');
  });

  it('ranks any candidate list with exactTopK', () => {
    const candidates = vectors.slice(0, 300).map((vector, id) => ({ id, vector }));
    expect(exactTopK(queries[1], candidates, 5)).toEqual(
      naive(vectors.slice(0, 300), queries[1], 5).map((h) => ({ id: h.id, similarity: expect.closeTo(h.similarity, 5) })),
    );
  });
});

describe('the index past exactBelow (HNSW)', () => {
  it('switches to HNSW when it reaches exactBelow and keeps every vector', () => {
    const vectors = randomVectors(prng(2), 600, 16);
    const index = createVectorIndex({ dimensions: 16, exactBelow: 500 });
    vectors.slice(0, 499).forEach((v, id) => index.add(id, v));
    expect(index.approximate).toBe(false);
    index.add(499, vectors[499]);
    expect(index.approximate).toBe(true);
    vectors.slice(500).forEach((v, i) => index.add(500 + i, v));
    expect(index.size).toBe(600);
    expect(index.search(vectors[123], 1)[0]).toMatchObject({ id: 123, similarity: expect.closeTo(1, 5) });
    // Fewer than exactBelow again: still HNSW.
    for (let id = 0; id < 200; id++) index.remove(id);
    expect(index).toMatchObject({ size: 400, approximate: true });
    expect(
      index
        .search(vectors[10], 400)
        .map((h) => h.id)
        .filter((id) => id < 200),
    ).toEqual([]);
  });

  it('re-adds removed and replaced ids without duplicates', () => {
    const vectors = randomVectors(prng(3), 400, 16);
    const index = filled(createVectorIndex({ dimensions: 16, exactBelow: 100 }), vectors.slice(0, 300));
    for (let id = 0; id < 50; id++) index.remove(id);
    for (let id = 300; id < 330; id++) index.add(id, vectors[id]); // take freed slots
    for (let id = 0; id < 50; id++) index.add(id, vectors[id]); // some revived, some new slots
    index.add(60, vectors[399]);
    expect(index.size).toBe(330);
    const ids = index.search(vectors[0], 330).map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(index.search(vectors[20], 1)[0]).toMatchObject({ id: 20 });
    expect(index.search(vectors[399], 1)[0]).toMatchObject({ id: 60 });
  });

  const recallOn = (vectors: Float32Array[], queries: Float32Array[]) => {
    const exact = filled(createVectorIndex({ dimensions: 64, exactBelow: Infinity }), vectors);
    const hnsw = filled(createVectorIndex({ dimensions: 64, exactBelow: 500 }), vectors);
    expect(hnsw.approximate).toBe(true);
    return { exact, hnsw, recall: measureRecall(hnsw, exact, queries, 10) };
  };

  it('finds at least 95% of the exact top 10 among 5,000 random 64-d vectors', () => {
    const rand = prng(4);
    const vectors = randomVectors(rand, 5000, 64);
    const queries = randomVectors(rand, 200, 64);
    const { exact, recall } = recallOn(vectors, queries);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    // The graph options reach hnswlib: a sparse graph searched narrowly misses more.
    const narrow = createVectorIndex({ dimensions: 64, exactBelow: 500, m: 4, efConstruction: 10, efSearch: 10 });
    expect(measureRecall(filled(narrow, vectors), exact, queries, 10)).toBeLessThan(0.8);
  });

  it('finds at least 95% of the exact top 10 among 50 Gaussian clusters', () => {
    const rand = prng(5);
    const { recall } = recallOn(clusteredVectors(rand, 5000, 64, 50), clusteredVectors(rand, 200, 64, 50));
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('returns only ids the filter accepts, and as many as asked', () => {
    const rand = prng(6);
    const vectors = randomVectors(rand, 3000, 64);
    const { exact, hnsw } = recallOn(vectors, []);
    const fifth = (id: number) => id % 5 === 0;
    for (const q of randomVectors(rand, 20, 64)) {
      const hits = hnsw.search(q, 10, fifth);
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => fifth(h.id))).toBe(true);
      const truth = new Set(exact.search(q, 10, fifth).map((h) => h.id));
      expect(hits.filter((h) => truth.has(h.id)).length).toBeGreaterThanOrEqual(8);
    }
  });
});

describe('the sparse index (built-in embedder)', () => {
  it('finds exactly the exact top 10, with filters and removals, at any size', async () => {
    const embedder = hashingEmbedder(1024);
    const words = Array.from({ length: 800 }, (_, i) => `w${(i * 7919) % 1000}x${i % 13}`);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rnd() ** 2 * words.length)]).join(' ');
    const vectors = await embedder.embed(Array.from({ length: 3000 }, () => text(40 + Math.floor(rnd() * 60))));
    const index = new SparseIndex(1024);
    vectors.forEach((v, id) => index.add(id, v));
    for (let id = 0; id < 3000; id += 10) index.remove(id);
    const alive = vectors.map((vector, id) => ({ id, vector })).filter((c) => c.id % 10 !== 0);
    for (const q of await embedder.embed(Array.from({ length: 50 }, () => text(5)))) {
      // Ties (identical texts) may come in either order: compare the similarities, rounded.
      const sims = (hits: { similarity: number }[]) => hits.map((h) => h.similarity.toFixed(5));
      const shares = (c: { vector: Float32Array }) => c.vector.some((x, d) => x !== 0 && q[d] !== 0);
      expect(sims(index.search(q, 10))).toEqual(sims(exactTopK(q, alive.filter(shares), 10)));
      const even = index.search(q, 10, (id) => id % 2 === 0);
      expect(even.every((h) => h.id % 2 === 0 && h.id % 10 !== 0)).toBe(true);
      expect(sims(even)).toEqual(
        sims(
          exactTopK(
            q,
            alive.filter((c) => c.id % 2 === 0 && shares(c)),
            10,
          ),
        ),
      );
    }
    expect(index.size).toBe(2700);
    expect(createVectorIndex({ dimensions: 1024, sparse: true })).toBeInstanceOf(SparseIndex);
  });
});
