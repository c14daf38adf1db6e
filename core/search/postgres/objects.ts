import type { PoolClient } from 'pg';
import type { PgPool } from '../../shared/postgres';
import { ObjectQuotaReached } from '../errors';
import type { ObjectRecord, ObjectStore, PreparedObject, SourceOutcome } from '../ports';
import { objectTerms } from '../terms';
import type { JsonObject, ObjectFields } from '../types';
import { vectorBlob } from '../vector-blobs';
import { FIELD_COLUMNS, fieldValues, OBJECT_COLUMNS, toObject, type ObjectRow } from './rows';
import { ftsWords, inTransaction, num, rows, type Db } from './sql';
import { CHANNEL } from './watch';

/** The full-text vectors: basic search's (title A, file name B, tags C) and a passage's (title A, text B). */
const FIELDS_FTS = (title: string, fileName: string, tags: string) =>
  `setweight(to_tsvector('simple', ${title}), 'A') || setweight(to_tsvector('simple', ${fileName}), 'B') || setweight(to_tsvector('simple', ${tags}), 'C')`;
const CHUNK_FTS = (title: string, text: string) =>
  `setweight(to_tsvector('simple', ${title}), 'A') || setweight(to_tsvector('simple', ${text}), 'B')`;

const fieldsFts = (f: ObjectFields) => [ftsWords(f.title), ftsWords(f.fileName ?? ''), ftsWords(f.tags.join(' '))];

/** Appends a change of the tenant's object and notifies it; both take effect at commit. */
const CHANGE = (tenant: string, seq: string, kind: string) =>
  `ch AS (INSERT INTO search_changes (tenant, object_seq, kind) SELECT ${tenant}, ${seq}, '${kind}' RETURNING id),
   n AS (SELECT pg_notify('${CHANNEL}', id::text) FROM ch)`;

const INSERT = `WITH o AS (
    INSERT INTO search_objects (id, tenant, ${FIELD_COLUMNS.join(', ')}, size, created_by, updated_by, source_key, content_hash, chunk_count,
      created_at, updated_at, fields_fts)
    VALUES ($1, $2, ${FIELD_COLUMNS.map((_, i) => `$${i + 3}`).join(', ')}, $18, $19, $19, $20, $21, $22, $23, $23, ${FIELDS_FTS('$24', '$25', '$26')})
    RETURNING seq),
  t AS (INSERT INTO search_object_text (seq, content) SELECT seq, $27 FROM o),
  c AS (
    INSERT INTO search_chunks (object_seq, tenant, idx, start_offset, end_offset, text, fts)
    SELECT o.seq, $2, x.idx, x.s, x.e, x.text, ${CHUNK_FTS('$24', 'x.words')}
    FROM o, unnest($28::int[], $29::int[], $30::int[], $31::text[], $32::text[]) WITH ORDINALITY AS x (idx, s, e, text, words, n)
    ORDER BY x.n
    RETURNING id, idx),
  v AS (INSERT INTO search_vectors (chunk_id, embedder, vector)
    SELECT c.id, $33, x.vector FROM c JOIN unnest($28::int[], $34::bytea[]) AS x (idx, vector) ON x.idx = c.idx),
  tm AS (INSERT INTO search_terms (field, value, object_seq) SELECT x.f, x.v, o.seq FROM o, unnest($35::text[], $36::text[]) AS x (f, v)
    ON CONFLICT DO NOTHING),
  u AS (UPDATE search_tenants SET live = live + 1 WHERE tenant = $2),
  ${CHANGE('$2', '(SELECT seq FROM o)', 'insert')}
  SELECT (SELECT seq FROM o) AS seq, (SELECT id FROM ch) AS change, (SELECT count(*) FROM n) AS notified`;

const REMOVE = `WITH o AS (
    UPDATE search_objects SET deleted_at = $2, updated_at = $2, updated_by = $3, system_metadata = $4, fields_fts = NULL
    WHERE seq = $1 AND deleted_at IS NULL RETURNING seq, tenant),
  c AS (UPDATE search_chunks SET fts = NULL WHERE object_seq IN (SELECT seq FROM o)),
  u AS (UPDATE search_tenants SET live = live - 1 WHERE tenant IN (SELECT tenant FROM o)),
  ch AS (INSERT INTO search_changes (tenant, object_seq, kind) SELECT tenant, seq, 'delete' FROM o RETURNING id),
  n AS (SELECT pg_notify('${CHANNEL}', id::text) FROM ch)
  SELECT (SELECT id FROM ch) AS change, (SELECT count(*) FROM n) AS notified`;

/**
 * The object store on PostgreSQL. Every write is one transaction that first locks its tenant's row
 * of `search_tenants` (created on the tenant's first write): the live count read there is the
 * quota's, and a tenant's writes, ids and changes follow one another whichever replica makes them.
 * `saw` is told every committed change (the watch's data version).
 */
export function pgObjectStore(pool: PgPool, saw: (changeId: number) => void): ObjectStore {
  /** Locks the tenant's row; returns its live objects. */
  const lockTenant = async (c: PoolClient, tenant: string) =>
    num(
      (
        await rows<{ live: string }>(
          c,
          'tenants.lock',
          `INSERT INTO search_tenants (tenant, live) VALUES ($1, 0) ON CONFLICT (tenant) DO UPDATE SET live = search_tenants.live RETURNING live`,
          [tenant],
        )
      )[0].live,
    );
  /** Locks the tenant of an object; false when there is no such object. */
  const lockTenantOf = async (c: PoolClient, seq: number) =>
    (
      await rows(
        c,
        'tenants.lock-of',
        `INSERT INTO search_tenants (tenant, live) SELECT tenant, 0 FROM search_objects WHERE seq = $1
     ON CONFLICT (tenant) DO UPDATE SET live = search_tenants.live RETURNING live`,
        [seq],
      )
    ).length > 0;

  const getLive = async (db: Db, tenant: string, id: string) =>
    (
      await rows<ObjectRow>(
        db,
        'objects.get',
        `SELECT ${OBJECT_COLUMNS} FROM search_objects o WHERE o.tenant = $1 AND o.id = $2 AND o.deleted_at IS NULL`,
        [tenant, id],
      )
    ).map(toObject)[0];
  const bySource = async (db: Db, tenant: string, sourceKey: string) =>
    (
      await rows<{ id: string; seq: string; content_hash: string | null }>(
        db,
        'objects.by-source',
        'SELECT id, seq, content_hash FROM search_objects WHERE tenant = $1 AND source_key = $2 AND deleted_at IS NULL',
        [tenant, sourceKey],
      )
    ).map((r) => ({ id: r.id, seq: num(r.seq), contentHash: r.content_hash }))[0];

  const insert = async (c: PoolClient, p: PreparedObject, live: number, maxPerTenant: number): Promise<{ seq: number; change: number }> => {
    if (live >= maxPerTenant) throw new ObjectQuotaReached(maxPerTenant);
    const terms = objectTerms({ ...p.fields });
    const [row] = await rows<{ seq: string; change: string }>(c, 'objects.insert', INSERT, [
      p.id,
      p.tenant,
      ...fieldValues(p.fields, p.isPrivate),
      p.size,
      p.createdBy,
      p.sourceKey ?? null,
      p.contentHash ?? null,
      p.chunks.length,
      new Date(p.now),
      ...fieldsFts(p.fields),
      p.content,
      p.chunks.map((ch) => ch.index),
      p.chunks.map((ch) => ch.start),
      p.chunks.map((ch) => ch.end),
      p.chunks.map((ch) => ch.text),
      p.chunks.map((ch) => ftsWords(ch.text)),
      p.embedderId,
      p.vectors.map((v) => vectorBlob(v, p.sparseVectors)),
      terms.map((t) => t[0]),
      terms.map((t) => t[1]),
    ]);
    return { seq: num(row.seq), change: num(row.change) };
  };

  const remove = async (c: PoolClient, seq: number, systemMetadata: JsonObject, by: string, now: number): Promise<number | undefined> => {
    const [row] = await rows<{ change: string | null }>(c, 'objects.remove', REMOVE, [
      seq,
      new Date(now),
      by,
      JSON.stringify(systemMetadata),
    ]);
    return row?.change == null ? undefined : num(row.change);
  };

  return {
    async insert(p, maxPerTenant = Infinity) {
      const { seq, change } = await inTransaction(pool, async (c) => insert(c, p, await lockTenant(c, p.tenant), maxPerTenant));
      saw(change);
      return seq;
    },

    // Decided under the tenant's lock: parallel runs over one file, on any replica, decide one after another.
    async putSource(p, deletedSystem, maxPerTenant = Infinity): Promise<SourceOutcome> {
      const { outcome, changes } = await inTransaction(pool, async (c) => {
        let live = await lockTenant(c, p.tenant);
        const previous = await bySource(c, p.tenant, p.sourceKey);
        if (previous && previous.contentHash === p.contentHash)
          return { outcome: { id: previous.id, outcome: 'unchanged' as const }, changes: [] };
        const changes: number[] = [];
        if (previous) {
          const removed = await remove(c, previous.seq, deletedSystem(await getLive(c, p.tenant, previous.id)), p.createdBy, p.now);
          if (removed !== undefined) {
            changes.push(removed);
            live--;
          }
        }
        changes.push((await insert(c, p, live, maxPerTenant)).change);
        return { outcome: { id: p.id, outcome: previous ? ('replaced' as const) : ('created' as const) }, changes };
      });
      changes.forEach(saw);
      return outcome;
    },

    async update(seq, f, isPrivate, by, now, titleChanged) {
      const change = await inTransaction(pool, async (c) => {
        if (!(await lockTenantOf(c, seq))) return undefined;
        const [title, fileName, tags] = fieldsFts(f);
        await rows(
          c,
          'objects.update',
          `UPDATE search_objects SET ${FIELD_COLUMNS.map((col, i) => `${col} = $${i + 1}`).join(', ')},
          updated_by = $16, updated_at = $17, fields_fts = CASE WHEN deleted_at IS NULL THEN ${FIELDS_FTS('$18', '$19', '$20')} END WHERE seq = $21`,
          [...fieldValues(f, isPrivate), by, new Date(now), title, fileName, tags, seq],
        );
        await rows(c, 'terms.delete', 'DELETE FROM search_terms WHERE object_seq = $1', [seq]);
        const terms = objectTerms({ ...f });
        await rows(
          c,
          'terms.insert',
          `INSERT INTO search_terms (field, value, object_seq) SELECT f, v, $3 FROM unnest($1::text[], $2::text[]) AS x (f, v)
          ON CONFLICT DO NOTHING`,
          [terms.map((t) => t[0]), terms.map((t) => t[1]), seq],
        );
        if (titleChanged) {
          const chunks = await rows<{ id: string; text: string }>(
            c,
            'chunks.live-of',
            'SELECT c.id, c.text FROM search_chunks c WHERE c.object_seq = $1 AND c.fts IS NOT NULL',
            [seq],
          );
          await rows(
            c,
            'chunks.retitle',
            `UPDATE search_chunks c SET fts = ${CHUNK_FTS('$1', 'x.words')}
            FROM unnest($2::bigint[], $3::text[]) AS x (id, words) WHERE c.id = x.id`,
            [title, chunks.map((ch) => ch.id), chunks.map((ch) => ftsWords(ch.text))],
          );
        }
        const [row] = await rows<{ change: string }>(
          c,
          'objects.updated',
          `WITH ${CHANGE('(SELECT tenant FROM search_objects WHERE seq = $1)', '$1::bigint', 'update')}
          SELECT (SELECT id FROM ch) AS change, (SELECT count(*) FROM n) AS notified`,
          [seq],
        );
        return num(row.change);
      });
      if (change !== undefined) saw(change);
    },

    async remove(seq, systemMetadata, by, now) {
      const change = await inTransaction(pool, async (c) =>
        (await lockTenantOf(c, seq)) ? remove(c, seq, systemMetadata, by, now) : undefined,
      );
      if (change === undefined) return false;
      saw(change);
      return true;
    },

    get: (tenant, id): Promise<ObjectRecord | undefined> => getLive(pool, tenant, id),
    chunksOf: async (seq, afterIndex, limit) =>
      (
        await rows<{ id: string; idx: number; text: string }>(
          pool,
          'objects.chunks-of',
          'SELECT id, idx, text FROM search_chunks WHERE object_seq = $1 AND idx > $2 ORDER BY idx LIMIT $3',
          [seq, afterIndex, limit],
        )
      ).map((r) => ({ id: num(r.id), idx: r.idx, text: r.text })),
    bySource: (tenant, key) => bySource(pool, tenant, key),
  };
}
