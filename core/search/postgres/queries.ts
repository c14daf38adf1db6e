import type { PgPool } from '../../shared/postgres';
import { wordsOf } from '../../shared/text/words';
import type { IndexQueries, Match, ObjectRecord, TextQuery } from '../ports';
import { OBJECT_COLUMNS, toObject, type ObjectRow } from './rows';
import { num, rows } from './sql';
import { whereOf } from './where';

/**
 * A text query as a tsquery of the 'simple' configuration: `all` every word as a prefix (`word:*`),
 * AND-ed; `phrase` the words adjacent in order (`<->`). Words are the search service's own (letters
 * and digits), each quoted, so nothing a caller types is read as tsquery syntax. Undefined when no
 * word is left.
 */
export function tsQuery(q: TextQuery): string | undefined {
  const words = q.words.flatMap((w) => wordsOf(w));
  if (!words.length) return undefined;
  return q.mode === 'phrase' ? words.map((w) => `'${w}'`).join(' <-> ') : words.map((w) => `'${w}':*`).join(' & ');
}

/**
 * ts_rank's weights for {D, C, B, A}: passages' title (A) counts twice their text (B); basic
 * search's title (A), file name (B) and tags (C) count 3:2:1, as bm25()'s column weights in search.db.
 */
const CHUNK_WEIGHTS = '{0, 0, 0.5, 1}';
const FIELD_WEIGHTS = '{0, 0.333333, 0.666667, 1}';

interface MatchRow {
  seq: string;
  raw: number;
  chunk_id: string | null;
}

const toMatch = (r: MatchRow): Match => ({ seq: num(r.seq), raw: r.raw, chunkId: r.chunk_id === null ? null : num(r.chunk_id) });

/**
 * The index queries on PostgreSQL: each joins the full-text match (or nothing, for listings) with
 * the selection's WHERE clause over `search_objects o`, so tenant, privacy and filters are applied
 * inside the query. Relevance is ts_rank (larger is better; not FTS5's bm25, see docs/postgres.md).
 */
export function pgIndexQueries(pool: PgPool): IndexQueries {
  const seqs = async (sql: string, params: unknown[]) => (await rows<{ seq: string }>(pool, undefined, sql, params)).map((r) => num(r.seq));

  return {
    async chunks(sel, q) {
      const query = tsQuery(q);
      if (!query) return [];
      const where = whereOf(sel);
      const at = where.next;
      return (
        await rows<MatchRow>(
          pool,
          undefined,
          `SELECT seq, raw, chunk_id FROM (
          SELECT DISTINCT ON (c.object_seq) c.object_seq AS seq, ts_rank('${CHUNK_WEIGHTS}', c.fts, q)::float8 AS raw, c.id AS chunk_id
          FROM search_chunks c JOIN search_objects o ON o.seq = c.object_seq, to_tsquery('simple', $${at}) q
          WHERE c.tenant = $1 AND c.fts @@ q AND ${where.sql}
          ORDER BY c.object_seq, raw DESC, c.id) m
        ORDER BY raw DESC, seq DESC`,
          [...where.params, query],
        )
      ).map(toMatch);
    },
    async fields(sel, q) {
      const query = tsQuery(q);
      if (!query) return [];
      const where = whereOf(sel);
      return (
        await rows<MatchRow>(
          pool,
          undefined,
          `SELECT o.seq AS seq, ts_rank('${FIELD_WEIGHTS}', o.fields_fts, q)::float8 AS raw, NULL AS chunk_id
        FROM search_objects o, to_tsquery('simple', $${where.next}) q
        WHERE o.fields_fts @@ q AND ${where.sql} ORDER BY raw DESC, o.seq DESC`,
          [...where.params, query],
        )
      ).map(toMatch);
    },
    async listing(sel) {
      const where = whereOf(sel);
      return seqs(`SELECT o.seq FROM search_objects o WHERE ${where.sql} ORDER BY o.updated_at DESC, o.seq DESC`, where.params);
    },
    async allowed(sel) {
      const where = whereOf(sel);
      return new Set(await seqs(`SELECT o.seq FROM search_objects o WHERE ${where.sql}`, where.params));
    },
    async sorted(list, by, order) {
      // Titles without regard to (ASCII) case, in byte order, as SQLite's NOCASE.
      const column = by === 'title' ? 'lower(o.title) COLLATE "C"' : 'o.updated_at';
      const dir = order === 'desc' ? 'DESC' : 'ASC';
      return seqs(`SELECT o.seq FROM search_objects o WHERE o.seq = ANY($1::bigint[]) ORDER BY ${column} ${dir}, o.seq DESC`, [list]);
    },
    async objects(list) {
      if (!list.length) return new Map();
      const found = await rows<ObjectRow>(
        pool,
        'queries.objects',
        `SELECT ${OBJECT_COLUMNS} FROM search_objects o WHERE o.seq = ANY($1::bigint[])`,
        [list],
      );
      return new Map(found.map(toObject).map((o): [number, ObjectRecord] => [o.seq, o]));
    },
    async firstChunks(list) {
      if (!list.length) return new Map();
      const found = await rows<{ seq: string; id: string; text: string }>(
        pool,
        'queries.first-chunks',
        'SELECT object_seq AS seq, id, text FROM search_chunks WHERE object_seq = ANY($1::bigint[]) AND idx = 0',
        [list],
      );
      return new Map(found.map((r) => [num(r.seq), { id: num(r.id), text: r.text }]));
    },
    async chunkTexts(ids) {
      if (!ids.length) return new Map();
      const found = await rows<{ id: string; seq: string; idx: number; text: string }>(
        pool,
        'queries.chunk-texts',
        'SELECT id, object_seq AS seq, idx, text FROM search_chunks WHERE id = ANY($1::bigint[])',
        [ids],
      );
      return new Map(found.map((r) => [num(r.id), { seq: num(r.seq), idx: r.idx, text: r.text }]));
    },
    async facets(list, fields) {
      if (!list.length || !fields.length) return [];
      const found = await rows<{ seq: string; field: string; value: string }>(
        pool,
        'queries.facets',
        'SELECT object_seq AS seq, field, value FROM search_terms WHERE object_seq = ANY($1::bigint[]) AND field = ANY($2::text[])',
        [list, fields],
      );
      return found.map((r) => ({ seq: num(r.seq), field: r.field, value: r.value }));
    },
  };
}
