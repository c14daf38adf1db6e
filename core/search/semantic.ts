import { statements, type Db } from '../shared/sqlite';
import type { Embedder } from '../shared/text/embedder';
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
      WHERE v.chunk_id > ? AND o.tenant = ? AND v.embedder = ? ORDER BY v.chunk_id LIMIT ?`,
    (r) => ({ id: r.id as number, seq: r.seq as number, vector: blobVector(r.vector as Buffer, embedder.dimensions, embedder.sparse) }));
  const tenants = new Map<string, TenantIndex>();
  let generation = generationOf();

  const tenantIndex = (tenant: string): TenantIndex => {
    const now = generationOf();
    if (now !== generation) {
      tenants.clear();
      generation = now;
    }
    let t = tenants.get(tenant);
    if (!t) tenants.set(tenant, (t = { index: createVectorIndex({ dimensions: embedder.dimensions, exactBelow: opts.exactBelow, sparse: embedder.sparse }), objectOf: new Map(), seen: 0, version: '' }));
    return t;
  };

  /** Adds one batch of vectors not yet indexed; false when there were none. */
  const step = (t: TenantIndex, tenant: string, size = 5000): boolean => {
    const batch = newer(t.seen, tenant, embedder.id, size);
    for (const row of batch) {
      t.index.add(row.id, row.vector);
      t.objectOf.set(row.id, row.seq);
      t.seen = row.id;
    }
    return batch.length > 0;
  };

  const catchUp = (tenant: string): TenantIndex => {
    const version = opts.version?.() ?? '';
    const current = tenants.get(tenant);
    if (current && version && current.version === version) return current;
    const t = tenantIndex(tenant);
    while (step(t, tenant));
    t.version = version;
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
    /** Indexes one batch of a tenant's vectors not yet indexed; false once there are none (warming up in slices). */
    warm: (tenant: string) => step(tenantIndex(tenant), tenant, 1000),
  };
}

export type VectorSearch = ReturnType<typeof vectorSearch>;
