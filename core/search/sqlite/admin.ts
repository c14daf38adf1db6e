import { statements, type Db } from '../../shared/sqlite';
import type { AdminStore } from '../ports';
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
  const setVector = s.run('INSERT OR REPLACE INTO vectors (chunk_id, embedder, vector) VALUES (?, ?, ?)');
  const bump = s.run("UPDATE meta SET value = value + 1 WHERE key = 'vectors_generation'");
  const prune = s.run('DELETE FROM changes WHERE id <= (SELECT max(id) FROM changes) - ?');
  const writeVectors = db.transaction(
    (embedder: string, sparse: boolean | undefined, vectors: readonly { chunkId: number; vector: Float32Array }[]) =>
      vectors.forEach((v) => setVector(v.chunkId, embedder, vectorBlob(v.vector, sparse))),
  );

  return {
    sameFile: async (tenant, sourceKey, contentHash) => sameFile(tenant, sourceKey, contentHash),
    chunkPage: async (afterId, limit) => chunkPage(afterId, limit),
    chunkCount: async () => chunkCount() ?? 0,
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
