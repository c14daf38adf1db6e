import type { PgPool } from '../../shared/postgres';
import type { IndexFeeds } from '../ports';
import { blobVector } from '../vector-blobs';
import { num, rows } from './sql';

/**
 * The feeds on PostgreSQL: passages by id within their tenant, the durable `search_changes` table
 * (updates and deletes; inserts are in it too, for the watch, but a reader takes them from the
 * passages), vectors by passage id, the vectors' generation. A tenant's ids are committed in the
 * order they were taken (its writes hold its lock), so reading on "after id N" misses nothing.
 * `dataVersion` is the watch's (watch.ts).
 */
export function pgIndexFeeds(pool: PgPool, dataVersion: () => string): IndexFeeds {
  type PassageRow = { id: string; seq: string; text: string; title: string };
  const passage = (r: PassageRow) => ({ id: num(r.id), seq: num(r.seq), text: r.text, title: r.title });
  return {
    dataVersion,
    tenants: async () =>
      (await rows<{ tenant: string }>(pool, 'feeds.tenants', 'SELECT tenant FROM search_tenants WHERE live > 0 ORDER BY tenant')).map(
        (r) => r.tenant,
      ),
    chunksSince: async (tenant, afterId, limit) =>
      (
        await rows<PassageRow>(
          pool,
          'feeds.chunks-since',
          `SELECT c.id, c.object_seq AS seq, c.text, o.title FROM search_chunks c JOIN search_objects o ON o.seq = c.object_seq
       WHERE c.tenant = $1 AND c.id > $2 AND o.deleted_at IS NULL ORDER BY c.id LIMIT $3`,
          [tenant, afterId, limit],
        )
      ).map(passage),
    changesSince: async (tenant, afterId) =>
      (
        await rows<{ id: string; seq: string }>(
          pool,
          'feeds.changes-since',
          `SELECT id, object_seq AS seq FROM search_changes WHERE tenant = $1 AND id > $2 AND kind IN ('update', 'delete') ORDER BY id`,
          [tenant, afterId],
        )
      ).map((r) => ({ id: num(r.id), seq: num(r.seq) })),
    lastChange: async (tenant) =>
      num(
        (
          await rows<{ id: string }>(
            pool,
            'feeds.last-change',
            `SELECT coalesce(max(id), 0) AS id FROM search_changes WHERE tenant = $1 AND kind IN ('update', 'delete')`,
            [tenant],
          )
        )[0].id,
      ),
    liveChunks: async (seq, upToId) =>
      (
        await rows<PassageRow>(
          pool,
          'feeds.live-chunks',
          `SELECT c.id, c.object_seq AS seq, c.text, o.title FROM search_chunks c JOIN search_objects o ON o.seq = c.object_seq
       WHERE c.object_seq = $1 AND c.id <= $2 AND o.deleted_at IS NULL ORDER BY c.idx`,
          [seq, upToId],
        )
      ).map(({ id, text, title }) => ({ id: num(id), text, title })),
    vectorsSince: async (tenant, afterId, format, limit) =>
      (
        await rows<{ id: string; seq: string; vector: Buffer }>(
          pool,
          'feeds.vectors-since',
          `SELECT v.chunk_id AS id, c.object_seq AS seq, v.vector FROM search_vectors v JOIN search_chunks c ON c.id = v.chunk_id
       WHERE c.tenant = $1 AND v.chunk_id > $2 AND v.embedder = $3 ORDER BY v.chunk_id LIMIT $4`,
          [tenant, afterId, format.id, limit],
        )
      ).map((r) => ({ id: num(r.id), seq: num(r.seq), vector: blobVector(r.vector, format.dimensions, format.sparse) })),
    vectorsGeneration: async () =>
      num(
        (await rows<{ value: string }>(pool, 'feeds.generation', "SELECT value FROM search_settings WHERE key = 'vectors_generation'"))[0]
          ?.value ?? 0,
      ),
  };
}
