import { statements, type Db } from '../../shared/sqlite';
import type { AdminStore } from '../ports';
import { tenantDocumentsOf } from '../tenant-documents';
import { vectorBlob } from '../vector-blobs';

/** `platform ingest` and `platform reindex` over search.db; `wrote` is told after every committed write. */
export function sqliteAdminStore(db: Db, wrote: () => void): AdminStore {
  const s = statements(db);
  const sameFile = s.one(
    'SELECT id FROM objects WHERE tenant = ? AND source_key = ? AND content_hash = ? AND deleted_at IS NULL',
    (r) => r.id as string,
  );
  const chunkPage = s.many(
    `SELECT c.id AS id, c.text AS text, o.title AS title FROM chunks c JOIN objects o ON o.seq = c.object_seq
    WHERE c.id > ? ORDER BY c.id LIMIT ?`,
    (r) => ({ id: r.id as number, text: r.text as string, title: r.title as string }),
  );
  const chunkCount = s.one('SELECT count(*) AS n FROM chunks', (r) => r.n as number);
  const tenantChunkPage = s.many(
    `SELECT c.id AS id, c.text AS text, o.title AS title FROM chunks c JOIN objects o ON o.seq = c.object_seq
    WHERE o.tenant = ? AND o.deleted_at IS NULL AND c.id > ? ORDER BY c.id LIMIT ?`,
    (r) => ({ id: r.id as number, text: r.text as string, title: r.title as string }),
  );
  const tenantChunkCount = s.one(
    'SELECT coalesce(sum(chunk_count), 0) AS n FROM objects WHERE tenant = ? AND deleted_at IS NULL',
    (r) => r.n as number,
  );
  // Counts from the objects' own columns (chunk_count, size); repos and folders from the terms index.
  const COUNTS = `SELECT tenant,
      sum(deleted_at IS NULL) AS documents,
      sum(deleted_at IS NULL AND is_private = 1) AS private_documents,
      sum(deleted_at IS NOT NULL) AS deleted_documents,
      coalesce(sum(CASE WHEN deleted_at IS NULL THEN chunk_count END), 0) AS passages,
      coalesce(sum(CASE WHEN deleted_at IS NULL THEN size END), 0) AS bytes,
      max(CASE WHEN deleted_at IS NULL THEN updated_at END) AS last_updated_at
    FROM objects`;
  const PLACES = `SELECT o.tenant AS tenant, t.field AS field, count(DISTINCT t.value) AS n
    FROM terms t JOIN objects o ON o.seq = t.object_seq
    WHERE t.field IN ('repos', 'folders') AND o.deleted_at IS NULL`;
  const allCounts = s.many(`${COUNTS} GROUP BY tenant`, (r) => r);
  const oneCounts = s.many(`${COUNTS} WHERE tenant = ? GROUP BY tenant`, (r) => r);
  const allPlaces = s.many(`${PLACES} GROUP BY o.tenant, t.field`, (r) => r);
  const onePlaces = s.many(`${PLACES} AND o.tenant = ? GROUP BY o.tenant, t.field`, (r) => r);
  const setVector = s.run('INSERT OR REPLACE INTO vectors (chunk_id, embedder, vector) VALUES (?, ?, ?)');
  const bump = s.run("UPDATE meta SET value = value + 1 WHERE key = 'vectors_generation'");
  const prune = s.run('DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - ?');
  const writeVectors = db.transaction(
    (embedder: string, sparse: boolean | undefined, vectors: readonly { chunkId: number; vector: Float32Array }[]) =>
      vectors.forEach((v) => setVector(v.chunkId, embedder, vectorBlob(v.vector, sparse))),
  );

  return {
    sameFile: async (tenant, sourceKey, contentHash) => sameFile(tenant, sourceKey, contentHash),
    chunkPage: async (afterId, limit, tenant) =>
      tenant === undefined ? chunkPage(afterId, limit) : tenantChunkPage(tenant, afterId, limit),
    chunkCount: async (tenant) => (tenant === undefined ? chunkCount() : tenantChunkCount(tenant)) ?? 0,
    tenantDocuments: async (tenant) =>
      tenantDocumentsOf(
        tenant,
        tenant === undefined ? allCounts() : oneCounts(tenant),
        tenant === undefined ? allPlaces() : onePlaces(tenant),
      ),
    writeVectors: async (format, vectors) => {
      writeVectors(format.id, format.sparse, vectors);
      wrote();
    },
    bumpVectorsGeneration: async () => {
      bump();
      wrote();
    },
    pruneChanges: async (keep) => prune(keep),
  };
}
