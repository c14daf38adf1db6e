import { statements, toJson, type Db } from '../../shared/sqlite';
import { ObjectQuotaReached } from '../errors';
import type { JsonObject, ObjectFields } from '../types';
import type { ObjectRecord, ObjectStore, PreparedObject, SourceOutcome } from '../ports';
import { objectTerms } from '../terms';
import { vectorBlob } from '../vector-blobs';
import { FIELD_COLUMNS, fieldValues, OBJECT_COLUMNS, toObject } from './rows';

export const ftsTags = (f: ObjectFields) => f.tags.join(' ');

/** The object store over search.db; `wrote` is told after every committed write (the data version counts them). */
export function sqliteObjectStore(db: Db, wrote: () => void): ObjectStore {
  const s = statements(db);
  const insertObject =
    s.run(`INSERT INTO objects (id, tenant, ${FIELD_COLUMNS.join(', ')}, size, created_by, updated_by, source_key, content_hash,
    chunk_count, created_at, updated_at) VALUES (?, ?, ${FIELD_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const seqOf = s.one('SELECT seq FROM objects WHERE id = ?', (r) => r.seq as number);
  const insertText = s.run('INSERT INTO object_text (seq, content) VALUES (?, ?)');
  const insertChunk = s.run('INSERT INTO chunks (object_seq, idx, start_offset, end_offset, text) VALUES (?, ?, ?, ?, ?)');
  const lastId = s.one('SELECT last_insert_rowid() AS id', (r) => r.id as number);
  const insertChunkFts = s.run('INSERT INTO chunk_fts (rowid, title, text) VALUES (?, ?, ?)');
  const deleteChunkFts = s.run('DELETE FROM chunk_fts WHERE rowid = ?');
  const insertObjectFts = s.run('INSERT INTO object_fts (rowid, title, file_name, tags) VALUES (?, ?, ?, ?)');
  const deleteObjectFts = s.run('DELETE FROM object_fts WHERE rowid = ?');
  const insertTerm = s.run('INSERT OR IGNORE INTO terms (field, value, object_seq) VALUES (?, ?, ?)');
  const deleteTerms = s.run('DELETE FROM terms WHERE object_seq = ?');
  const insertVector = s.run('INSERT INTO vectors (chunk_id, embedder, vector) VALUES (?, ?, ?)');
  const chunksOf = s.many('SELECT id, text FROM chunks WHERE object_seq = ? ORDER BY idx', (r) => ({
    id: r.id as number,
    text: r.text as string,
  }));
  const chunkPage = s.many('SELECT id, idx, text FROM chunks WHERE object_seq = ? AND idx > ? ORDER BY idx LIMIT ?', (r) => ({
    id: r.id as number,
    idx: r.idx as number,
    text: r.text as string,
  }));
  const updateFields = s.run(
    `UPDATE objects SET ${FIELD_COLUMNS.map((c) => `${c} = ?`).join(', ')}, updated_by = ?, updated_at = ? WHERE seq = ?`,
  );
  const markDeleted = s.run(
    'UPDATE objects SET deleted_at = ?, updated_at = ?, updated_by = ?, system_metadata = ? WHERE seq = ? AND deleted_at IS NULL',
  );
  const getLive = s.one(`SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.tenant = ? AND o.id = ? AND o.deleted_at IS NULL`, toObject);
  const countLive = s.one('SELECT count(*) AS n FROM objects WHERE tenant = ? AND deleted_at IS NULL', (r) => r.n as number);
  const bySource = s.one('SELECT id, seq, content_hash FROM objects WHERE tenant = ? AND source_key = ? AND deleted_at IS NULL', (r) => ({
    id: r.id as string,
    seq: r.seq as number,
    contentHash: r.content_hash as string | null,
  }));
  const recordChange = s.run('INSERT INTO changes (tenant, object_seq) SELECT tenant, seq FROM objects WHERE seq = ?');
  const chunkIdsOf = s.many('SELECT id FROM chunks WHERE object_seq = ?', (r) => r.id as number);

  const counted = <T>(result: T): T => {
    wrote();
    return result;
  };

  const indexFields = (seq: number, f: ObjectFields) => {
    insertObjectFts(seq, f.title, f.fileName ?? '', ftsTags(f));
    for (const [field, value] of objectTerms({ ...f })) insertTerm(field, value, seq);
  };

  const insert = db.transaction((p: PreparedObject, maxPerTenant: number): number => {
    const live = countLive(p.tenant) ?? 0;
    if (live >= maxPerTenant) throw new ObjectQuotaReached(maxPerTenant);
    insertObject(
      p.id,
      p.tenant,
      ...fieldValues(p.fields, p.isPrivate),
      p.size,
      p.createdBy,
      p.createdBy,
      p.sourceKey ?? null,
      p.contentHash ?? null,
      p.chunks.length,
      p.now,
      p.now,
    );
    const seq = seqOf(p.id)!;
    insertText(seq, p.content);
    p.chunks.forEach((c, i) => {
      insertChunk(seq, c.index, c.start, c.end, c.text);
      const chunkId = lastId()!;
      insertChunkFts(chunkId, p.fields.title, c.text);
      insertVector(chunkId, p.embedderId, vectorBlob(p.vectors[i], p.sparseVectors));
    });
    indexFields(seq, p.fields);
    return seq;
  });

  const update = db.transaction((seq: number, f: ObjectFields, isPrivate: boolean, by: string, now: number, titleChanged: boolean) => {
    updateFields(...fieldValues(f, isPrivate), by, now, seq);
    deleteObjectFts(seq);
    deleteTerms(seq);
    indexFields(seq, f);
    if (titleChanged) {
      for (const c of chunksOf(seq)) {
        deleteChunkFts(c.id);
        insertChunkFts(c.id, f.title, c.text);
      }
    }
    recordChange(seq);
  });

  // Soft delete: the rows stay (audit), the full-text rows go, and every search excludes the object.
  const remove = db.transaction((seq: number, systemMetadata: JsonObject, by: string, now: number): boolean => {
    if (!markDeleted(now, now, by, toJson(systemMetadata), seq)) return false;
    deleteObjectFts(seq);
    for (const id of chunkIdsOf(seq)) deleteChunkFts(id);
    recordChange(seq);
    return true;
  });

  // IMMEDIATE (below): the write lock is taken before the lookup, so parallel runs decide one after another.
  const putSource = db.transaction(
    (p: PreparedObject, maxPerTenant: number, deletedSystem: (old: ObjectRecord) => JsonObject): SourceOutcome => {
      const previous = bySource(p.tenant, p.sourceKey);
      if (previous && previous.contentHash === p.contentHash) return { id: previous.id, outcome: 'unchanged' };
      if (previous) remove(previous.seq, deletedSystem(getLive(p.tenant, previous.id)!), p.createdBy, p.now);
      insert(p, maxPerTenant);
      return { id: p.id, outcome: previous ? 'replaced' : 'created' };
    },
  );

  return {
    // IMMEDIATE: the quota count holds across processes.
    insert: async (p, maxPerTenant = Infinity) => counted(insert.immediate(p, maxPerTenant)),
    putSource: async (p, deletedSystem, maxPerTenant = Infinity) => counted(putSource.immediate(p, maxPerTenant, deletedSystem)),
    update: async (seq, f, isPrivate, by, now, titleChanged) => counted(update(seq, f, isPrivate, by, now, titleChanged)),
    remove: async (seq, systemMetadata, by, now) => counted(remove(seq, systemMetadata, by, now)),
    get: async (tenant, id) => getLive(tenant, id),
    chunksOf: async (seq, afterIndex, limit) => chunkPage(seq, afterIndex, limit),
    bySource: async (tenant, key) => bySource(tenant, key),
  };
}
