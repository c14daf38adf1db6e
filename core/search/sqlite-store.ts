import { openDatabase, statements, type Db } from '../shared/sqlite';
import type { Chunk } from './chunker';
import { FIELD_COLUMNS, fieldValues, OBJECT_COLUMNS, toObject, vectorBlob, type ObjectRow } from './sqlite-rows';
import { SEARCH_MIGRATIONS } from './sqlite-schema';
import { objectTerms } from './terms';
import { ObjectQuotaReached } from './errors';
import type { ObjectFields } from './types';

/** An object ready to be written: fields, text, passages and their vectors. */
export interface PreparedObject {
  id: string;
  tenant: string;
  fields: ObjectFields;
  isPrivate: boolean;
  size: number;
  content: string;
  chunks: Chunk[];
  vectors: Float32Array[];
  embedderId: string;
  /** Store the vectors as their nonzero entries (the embedder's vectors are sparse). */
  sparseVectors?: boolean;
  createdBy: string;
  now: number;
  sourceKey?: string;
  contentHash?: string;
}

export interface SourceOutcome {
  id: string;
  outcome: 'created' | 'replaced' | 'unchanged';
}

export const ftsTags = (f: ObjectFields) => f.tags.join(' ');

/** The repository's writes and its lookups by id; searches live in their own modules over the same db. */
export function sqliteObjectStore(db: Db) {
  const s = statements(db);
  const insertObject = s.run(`INSERT INTO objects (id, tenant, ${FIELD_COLUMNS.join(', ')}, size, created_by, updated_by, source_key, content_hash,
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
  const chunksOf = s.many('SELECT id, text FROM chunks WHERE object_seq = ? ORDER BY idx', (r) => ({ id: r.id as number, text: r.text as string }));
  const updateFields = s.run(`UPDATE objects SET ${FIELD_COLUMNS.map((c) => `${c} = ?`).join(', ')}, updated_by = ?, updated_at = ? WHERE seq = ?`);
  const markDeleted = s.run('UPDATE objects SET deleted_at = ?, updated_at = ?, updated_by = ?, system_metadata = ? WHERE seq = ? AND deleted_at IS NULL');
  const getLive = s.one(`SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.tenant = ? AND o.id = ? AND o.deleted_at IS NULL`, toObject);
  const countLive = s.one('SELECT count(*) AS n FROM objects WHERE tenant = ? AND deleted_at IS NULL', (r) => r.n as number);
  const bySource = s.one('SELECT id, seq, content_hash FROM objects WHERE tenant = ? AND source_key = ? AND deleted_at IS NULL',
    (r) => ({ id: r.id as string, seq: r.seq as number, contentHash: r.content_hash as string | null }));
  const recordChange = s.run('INSERT INTO changes (tenant, object_seq) SELECT tenant, seq FROM objects WHERE seq = ?');
  const chunkIdsOf = s.many('SELECT id FROM chunks WHERE object_seq = ?', (r) => r.id as number);
  /** Bumped after every write of this connection (other connections' writes move `data_version`). */
  let writes = 0;

  const wrote = <T>(result: T): T => {
    writes++;
    return result;
  };

  const indexFields = (seq: number, f: ObjectFields) => {
    insertObjectFts(seq, f.title, f.fileName ?? '', ftsTags(f));
    for (const [field, value] of objectTerms({ ...f })) insertTerm(field, value, seq);
  };

  const insert = db.transaction((p: PreparedObject, maxPerTenant: number): number => {
    const live = countLive(p.tenant) ?? 0;
    if (live >= maxPerTenant) throw new ObjectQuotaReached(maxPerTenant);
    insertObject(p.id, p.tenant, ...fieldValues(p.fields, p.isPrivate), p.size, p.createdBy, p.createdBy, p.sourceKey ?? null,
      p.contentHash ?? null, p.chunks.length, p.now, p.now);
    const seq = seqOf(p.id)!;
    insertText(seq, p.content);
    p.chunks.forEach((c, i) => {
      insertChunk(seq, c.index, c.start, c.end, c.text);
      const chunkId = lastId()!;
      insertChunkFts(chunkId, p.fields.title, c.text);
      insertVector(chunkId, p.embedderId, vectorBlob(p.vectors[i]!, p.sparseVectors));
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

  /** Soft delete: the rows stay (audit), the full-text rows go, and every search excludes the object. */
  const remove = db.transaction((seq: number, systemMetadata: string, by: string, now: number): boolean => {
    if (!markDeleted(now, now, by, systemMetadata, seq)) return false;
    deleteObjectFts(seq);
    for (const id of chunkIdsOf(seq)) deleteChunkFts(id);
    recordChange(seq);
    return true;
  });

  /**
   * `platform ingest`: keeps, replaces or adds the object of `p.sourceKey`, decided inside the write
   * transaction (IMMEDIATE), so parallel runs over the same file agree: one adds it, the others find
   * it. A changed file's old version is deleted in the same transaction.
   */
  const putSource = db.transaction((p: PreparedObject, maxPerTenant: number, deletedSystem: (old: ObjectRow) => string): SourceOutcome => {
    const previous = bySource(p.tenant, p.sourceKey);
    if (previous && previous.contentHash === p.contentHash) return { id: previous.id, outcome: 'unchanged' };
    if (previous) remove(previous.seq, deletedSystem(getLive(p.tenant, previous.id)!), p.createdBy, p.now);
    insert(p, maxPerTenant);
    return { id: p.id, outcome: previous ? 'replaced' : 'created' };
  });

  return {
    /** Writes the object, its text, passages, vectors and index rows in one transaction (IMMEDIATE: the quota holds across processes). */
    insert: (p: PreparedObject, maxPerTenant = Infinity) => wrote(insert.immediate(p, maxPerTenant)),
    putSource: (p: PreparedObject & { sourceKey: string }, deletedSystem: (old: ObjectRow) => string, maxPerTenant = Infinity) =>
      wrote(putSource.immediate(p, maxPerTenant, deletedSystem)),
    update: (seq: number, f: ObjectFields, isPrivate: boolean, by: string, now: number, titleChanged: boolean) =>
      wrote(update(seq, f, isPrivate, by, now, titleChanged)),
    remove: (seq: number, systemMetadata: string, by: string, now: number) => wrote(remove(seq, systemMetadata, by, now)),
    /**
     * Changes whenever search.db may have changed: a write of this connection, or a commit of another
     * (SQLite's data_version). Caches keyed by it never serve stale results.
     */
    version: () => `${db.pragma('data_version', { simple: true }) as number}.${writes}`,
    get: (tenant: string, id: string): ObjectRow | undefined => getLive(tenant, id),
    bySource: (tenant: string, key: string) => bySource(tenant, key),
  };
}

export type ObjectStore = ReturnType<typeof sqliteObjectStore>;

export const openSearchDb = (file: string, opts: { durable?: boolean } = {}): Db => openDatabase(file, SEARCH_MIGRATIONS, opts);
