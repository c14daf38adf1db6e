import type { PgPool } from '../../shared/postgres';
import type { AdminStore } from '../ports';
import { tenantDocumentsOf } from '../tenant-documents';
import { vectorBlob } from '../vector-blobs';
import { num, rows } from './sql';
import { CHANNEL } from './watch';

/** A change of no tenant in particular (every vector), appended and notified by the statement that makes it. */
const CHANGE = (kind: string) => `ch AS (INSERT INTO search_changes (tenant, object_seq, kind) VALUES ('', NULL, '${kind}') RETURNING id),
  n AS (SELECT pg_notify('${CHANNEL}', id::text) FROM ch)
  SELECT (SELECT id FROM ch) AS change, (SELECT count(*) FROM n) AS notified`;

/** `platform ingest` and `platform reindex` on PostgreSQL; `saw` is told every committed change. */
export function pgAdminStore(pool: PgPool, saw: (changeId: number) => void): AdminStore {
  const change = async (name: string, sql: string, values: unknown[]) =>
    saw(num((await rows<{ change: string }>(pool, name, sql, values))[0].change));
  return {
    sameFile: async (tenant, sourceKey, contentHash) =>
      (
        await rows<{ id: string }>(
          pool,
          'admin.same-file',
          'SELECT id FROM search_objects WHERE tenant = $1 AND source_key = $2 AND content_hash = $3 AND deleted_at IS NULL',
          [tenant, sourceKey, contentHash],
        )
      )[0]?.id,
    chunkPage: async (afterId, limit, tenant) =>
      (tenant === undefined
        ? await rows<{ id: string; text: string; title: string }>(
            pool,
            'admin.chunk-page',
            `SELECT c.id, c.text, o.title FROM search_chunks c JOIN search_objects o ON o.seq = c.object_seq WHERE c.id > $1 ORDER BY c.id LIMIT $2`,
            [afterId, limit],
          )
        : await rows<{ id: string; text: string; title: string }>(
            pool,
            'admin.tenant-chunk-page',
            `SELECT c.id, c.text, o.title FROM search_chunks c JOIN search_objects o ON o.seq = c.object_seq
            WHERE c.tenant = $1 AND o.deleted_at IS NULL AND c.id > $2 ORDER BY c.id LIMIT $3`,
            [tenant, afterId, limit],
          )
      ).map((r) => ({ id: num(r.id), text: r.text, title: r.title })),
    chunkCount: async (tenant) =>
      num(
        (tenant === undefined
          ? await rows<{ n: string }>(pool, 'admin.chunk-count', 'SELECT count(*) AS n FROM search_chunks')
          : await rows<{ n: string }>(
              pool,
              'admin.tenant-chunk-count',
              'SELECT coalesce(sum(chunk_count), 0) AS n FROM search_objects WHERE tenant = $1 AND deleted_at IS NULL',
              [tenant],
            ))[0].n,
      ),
    tenantDocuments: async (tenant) => {
      const one = tenant !== undefined;
      // Counts from the objects' own columns (chunk_count, size); repos and folders from the terms index.
      const counts = await rows<Record<string, unknown>>(
        pool,
        one ? 'admin.tenant-counts' : 'admin.all-counts',
        `SELECT tenant,
          count(*) FILTER (WHERE deleted_at IS NULL) AS documents,
          count(*) FILTER (WHERE deleted_at IS NULL AND is_private) AS private_documents,
          count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted_documents,
          coalesce(sum(chunk_count) FILTER (WHERE deleted_at IS NULL), 0) AS passages,
          coalesce(sum(size) FILTER (WHERE deleted_at IS NULL), 0) AS bytes,
          max(updated_at) FILTER (WHERE deleted_at IS NULL) AS last_updated_at
        FROM search_objects ${one ? 'WHERE tenant = $1' : ''} GROUP BY tenant`,
        one ? [tenant] : [],
      );
      const places = await rows<Record<string, unknown>>(
        pool,
        one ? 'admin.tenant-places' : 'admin.all-places',
        `SELECT o.tenant, t.field, count(DISTINCT t.value) AS n FROM search_terms t JOIN search_objects o ON o.seq = t.object_seq
        WHERE t.field IN ('repos', 'folders') AND o.deleted_at IS NULL ${one ? 'AND o.tenant = $1' : ''} GROUP BY o.tenant, t.field`,
        one ? [tenant] : [],
      );
      return tenantDocumentsOf(tenant, counts, places);
    },
    // One statement: the page's vectors and their change commit together.
    writeVectors: (format, vectors) =>
      change(
        'admin.write-vectors',
        `WITH w AS (
        INSERT INTO search_vectors (chunk_id, embedder, vector) SELECT x.id, $2, x.vector FROM unnest($1::bigint[], $3::bytea[]) AS x (id, vector)
        ON CONFLICT (chunk_id) DO UPDATE SET embedder = EXCLUDED.embedder, vector = EXCLUDED.vector),
      ${CHANGE('vectors')}`,
        [vectors.map((v) => v.chunkId), format.id, vectors.map((v) => vectorBlob(v.vector, format.sparse))],
      ),
    // The newest row stays whatever `keep` is: the watch reads where the feed is from it.
    pruneChanges: async (keep) =>
      (
        await pool.query({
          name: 'search.admin.prune-changes',
          text: 'DELETE FROM search_changes WHERE id <= (SELECT max(id) FROM search_changes) - $1',
          values: [Math.max(1, keep)],
        })
      ).rowCount ?? 0,
    bumpVectorsGeneration: () =>
      change(
        'admin.bump-generation',
        `WITH b AS (UPDATE search_settings SET value = value + 1 WHERE key = 'vectors_generation'),
      ${CHANGE('generation')}`,
        [],
      ),
  };
}
