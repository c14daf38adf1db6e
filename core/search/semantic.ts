import type { Embedder } from '../shared/text/embedder';
import type { IndexFeeds } from './ports';
import { lanes } from './lanes';
import { createVectorIndex, type VectorIndex } from './vectors';
import { BYTES } from './memory';

/**
 * Vector search over one tenant's passages. Each tenant has its own index (exact below a size,
 * HNSW past it: core/search/vectors), so a query can only ever reach its own tenant's vectors.
 * Indexes live in memory and follow the store: before each search, vectors written since (by this
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
  /** The store's data version when it last caught up. */
  version: string;
}

export function vectorSearch(feeds: IndexFeeds, embedder: Embedder, opts: { exactBelow?: number } = {}) {
  const tenants = new Map<string, TenantIndex>();
  const inLane = lanes();
  let generation: number | undefined;

  const tenantIndex = async (tenant: string): Promise<TenantIndex> => {
    const now = await feeds.vectorsGeneration();
    if (now !== generation) {
      tenants.clear();
      generation = now;
    }
    let t = tenants.get(tenant);
    if (!t)
      tenants.set(
        tenant,
        (t = {
          index: createVectorIndex({ dimensions: embedder.dimensions, exactBelow: opts.exactBelow, sparse: embedder.sparse }),
          objectOf: new Map(),
          seen: 0,
          version: '',
        }),
      );
    return t;
  };

  /** Adds one batch of vectors not yet indexed; false when there were none. */
  const step = async (t: TenantIndex, tenant: string, size = 5000): Promise<boolean> => {
    const batch = await feeds.vectorsSince(tenant, t.seen, embedder, size);
    for (const row of batch) {
      t.index.add(row.id, row.vector);
      t.objectOf.set(row.id, row.seq);
      t.seen = row.id;
    }
    return batch.length > 0;
  };

  const catchUp = (tenant: string): TenantIndex | Promise<TenantIndex> => {
    const current = tenants.get(tenant);
    if (current && current.version && current.version === feeds.dataVersion()) return current;
    return inLane(tenant, async () => {
      const version = feeds.dataVersion();
      const t = await tenantIndex(tenant);
      if (t.version === version) return t;
      while (await step(t, tenant));
      t.version = version;
      return t;
    });
  };

  return {
    /**
     * The `k` passages nearest to `query` among objects `allowed` lets through (the selection's
     * result), best first.
     */
    async search(tenant: string, query: Float32Array, k: number, allowed: Set<number>): Promise<ChunkHit[]> {
      const t = await catchUp(tenant);
      if (!allowed.size || !t.index.size) return [];
      const accept = (id: number) => allowed.has(t.objectOf.get(id) ?? -1);
      return t.index.search(query, k, accept).map((h) => ({ chunkId: h.id, seq: t.objectOf.get(h.id)!, similarity: h.similarity }));
    },
    /** An estimate of the memory the tenants' vector indexes hold (memory.ts), their chunk → object maps included. */
    memoryBytes(): number {
      let bytes = 0;
      for (const t of tenants.values()) bytes += t.index.memoryBytes + t.objectOf.size * BYTES.mapEntry;
      return bytes;
    },
    /** Indexes one batch of a tenant's vectors not yet indexed; false once there are none (warming up in slices). */
    warm: (tenant: string): Promise<boolean> => inLane(tenant, async () => step(await tenantIndex(tenant), tenant, 1000)),
  };
}

export type VectorSearch = ReturnType<typeof vectorSearch>;
