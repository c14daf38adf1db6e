import { statements, type Db } from '../../shared/sqlite';
import type { IndexFeeds } from '../ports';
import { blobVector } from '../vector-blobs';

/**
 * The feeds over search.db: passages by their AUTOINCREMENT id, the `changes` table, vectors by
 * chunk id, and the `meta` counter of the vectors' generation. `dataVersion` is given by the
 * store, which counts its own writes (SQLite's data_version only moves for other connections').
 */
export function sqliteIndexFeeds(db: Db, dataVersion: () => string): IndexFeeds {
  const s = statements(db);
  const newChunks = s.many(
    `SELECT c.id AS id, c.object_seq AS seq, c.text AS text, o.title AS title FROM chunks c
      JOIN objects o ON o.seq = c.object_seq WHERE o.tenant = ? AND c.id > ? AND o.deleted_at IS NULL ORDER BY c.id LIMIT ?`,
    (r) => ({ id: r.id as number, seq: r.seq as number, text: r.text as string, title: r.title as string }),
  );
  const changes = s.many('SELECT id, object_seq AS seq FROM changes WHERE tenant = ? AND id > ? ORDER BY id', (r) => ({
    id: r.id as number,
    seq: r.seq as number,
  }));
  const lastChange = s.one('SELECT coalesce(max(id), 0) AS id FROM changes WHERE tenant = ?', (r) => r.id as number);
  const liveChunks = s.many(
    `SELECT c.id AS id, c.text AS text, o.title AS title FROM chunks c JOIN objects o ON o.seq = c.object_seq
      WHERE c.object_seq = ? AND c.id <= ? AND o.deleted_at IS NULL ORDER BY c.idx`,
    (r) => ({ id: r.id as number, text: r.text as string, title: r.title as string }),
  );
  const newVectors = db.prepare(`SELECT v.chunk_id AS id, c.object_seq AS seq, v.vector AS vector FROM vectors v
      JOIN chunks c ON c.id = v.chunk_id JOIN objects o ON o.seq = c.object_seq
      WHERE v.chunk_id > ? AND o.tenant = ? AND v.embedder = ? ORDER BY v.chunk_id LIMIT ?`);
  const generation = s.one("SELECT value FROM meta WHERE key = 'vectors_generation'", (r) => r.value as number);
  const tenants = s.many('SELECT DISTINCT tenant FROM objects WHERE deleted_at IS NULL', (r) => r.tenant as string);

  return {
    dataVersion,
    tenants: async () => tenants(),
    chunksSince: async (tenant, afterId, limit) => newChunks(tenant, afterId, limit),
    changesSince: async (tenant, afterId) => changes(tenant, afterId),
    lastChange: async (tenant) => lastChange(tenant) ?? 0,
    liveChunks: async (seq, upToId) => liveChunks(seq, upToId),
    vectorsSince: async (tenant, afterId, format, limit) =>
      (newVectors.all(afterId, tenant, format.id, limit) as { id: number; seq: number; vector: Buffer }[]).map((r) => ({
        id: r.id,
        seq: r.seq,
        vector: blobVector(r.vector, format.dimensions, format.sparse),
      })),
    vectorsGeneration: async () => generation() ?? 0,
  };
}
