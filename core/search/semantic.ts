import { statements, type Db } from '../sqlite';
import type { Embedder } from './embedder';
import { blobVector } from './sqlite-rows';
import { createVectorIndex, type VectorIndex } from './vectors';

/**
 * Vector search over one tenant's passages. Each tenant has its own index (exact below a size,
 * HNSW past it: core/search/vectors), so a query can only ever reach its own tenant's vectors.
 * Indexes live in memory and follow search.db: before each search, vectors written since (by this
 * process, another worker or `platform ingest`) are added, and a new generation (`platform
 * reindex`) rebuilds them. Only vectors of the configured embedder are used.
 */
export interface ChunkHit {
  chunkId: number;
  seq: number;
  similarity: number;
}

interface TenantIndex {
  index: VectorIndex;
  /** chunk id → object seq, to apply the object filters during the search. */
  objectOf: Map<number, number>;
  /** Highest chunk id added. */
  seen: number;
  /** search.db's version when it last caught up. */
  version: string;
}

export function vectorSearch(db: Db, embedder: Embedder, opts: { exactBelow?: number; version?: () => string } = {}) {
  const s = statements(db);
  const generationOf = s.one("SELECT value FROM meta WHERE key = 'vectors_generation'", (r) => r.value as number);
  const newer = s.many(`SELECT v.chunk_id AS id, c.object_seq AS seq, v.vector AS vector FROM vectors v
      JOIN chunks c ON c.id = v.chunk_id JOIN objects o ON o.seq = c.object_seq
      WHERE v.chunk_id > ? AND o.tenant = ? AND v.embedder = ? ORDER BY v.chunk_id LIMIT 5000`,
    (r) => ({ id: r.id as number, seq: r.seq as number, vector: blobVector(r.vector as Buffer, embedder.dimensions, embedder.sparse) }));
  const tenants = new Map<string, TenantIndex>();
  let generation = generationOf();

  const catchUp = (tenant: string): TenantIndex => {
    const version = opts.version?.() ?? '';
    let t = tenants.get(tenant);
    if (t && version && t.version === version) return t;
    const now = generationOf();
    if (now !== generation) {
      tenants.clear();
      generation = now;
      t = undefined;
    }
    if (!t) tenants.set(tenant, (t = { index: createVectorIndex({ dimensions: embedder.dimensions, exactBelow: opts.exactBelow, sparse: embedder.sparse }), objectOf: new Map(), seen: 0, version: '' }));
    t.version = version;
    for (let batch = newer(t.seen, tenant, embedder.id); batch.length; batch = newer(t.seen, tenant, embedder.id)) {
      for (const row of batch) {
        t.index.add(row.id, row.vector);
        t.objectOf.set(row.id, row.seq);
        t.seen = row.id;
      }
    }
    return t;
  };

  return {
    /**
     * The `k` passages nearest to `query` among objects `allowed` lets through (the filter clause's
     * result), best first.
     */
    search(tenant: string, query: Float32Array, k: number, allowed: Set<number>): ChunkHit[] {
      const t = catchUp(tenant);
      if (!allowed.size || !t.index.size) return [];
      const accept = (id: number) => allowed.has(t.objectOf.get(id) ?? -1);
      return t.index.search(query, k, accept).map((h) => ({ chunkId: h.id, seq: t.objectOf.get(h.id)!, similarity: h.similarity }));
    },
    /** Loads a tenant's vectors now (after a write, so the next search does not pay for it). */
    warm: (tenant: string) => void catchUp(tenant),
    /** Passages indexed for a tenant (tests, health). */
    size: (tenant: string) => catchUp(tenant).index.size,
  };
}

export type VectorSearch = ReturnType<typeof vectorSearch>;
