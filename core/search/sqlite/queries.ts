import { preparedLru, type Db } from '../../shared/sqlite';
import type { IndexQueries, Match, ObjectRecord } from '../ports';
import { ftsMatch } from './match';
import { OBJECT_COLUMNS, toObject } from './rows';
import { whereOf } from './where';

/**
 * The index queries over search.db: each joins the full-text match (or nothing, for listings) with
 * the selection's WHERE clause over `objects o`, so tenant, privacy and filters are applied by
 * SQLite inside the query. Scores are BM25 negated (larger is better). Statements are prepared once
 * per SQL text (the clause's text varies with the filters given).
 */
const toMatch = (r: unknown): Match => {
  const m = r as { seq: number; raw: number; chunk_id: number | null };
  return { seq: m.seq, raw: m.raw, chunkId: m.chunk_id ?? null };
};

export function sqliteIndexQueries(db: Db): IndexQueries {
  const prepare = preparedLru(db);
  const byJson = (ids: readonly number[]) => JSON.stringify(ids);

  return {
    async chunks(sel, q) {
      const where = whereOf(sel);
      // MATERIALIZED: bm25() cannot run inside the aggregate the planner would otherwise fold it into.
      return prepare(`WITH m AS MATERIALIZED (
          SELECT c.object_seq AS seq, -bm25(chunk_fts, 2.0, 1.0) AS s, c.id AS chunk_id
          FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid JOIN objects o ON o.seq = c.object_seq
          WHERE chunk_fts MATCH ? AND ${where.sql})
        SELECT seq, max(s) AS raw, chunk_id FROM m GROUP BY seq ORDER BY raw DESC`)
        .all(ftsMatch(q), ...where.params)
        .map(toMatch);
    },
    async fields(sel, q) {
      const where = whereOf(sel);
      return prepare(`SELECT o.seq AS seq, -bm25(object_fts, 3.0, 2.0, 1.0) AS raw, NULL AS chunk_id
        FROM object_fts JOIN objects o ON o.seq = object_fts.rowid
        WHERE object_fts MATCH ? AND ${where.sql} ORDER BY raw DESC`)
        .all(ftsMatch(q), ...where.params)
        .map(toMatch);
    },
    async listing(sel) {
      const where = whereOf(sel);
      return (
        prepare(`SELECT o.seq AS seq FROM objects o WHERE ${where.sql} ORDER BY o.updated_at DESC, o.seq DESC`).all(...where.params) as {
          seq: number;
        }[]
      ).map((r) => r.seq);
    },
    async allowed(sel) {
      const where = whereOf(sel);
      return new Set(
        (prepare(`SELECT o.seq AS seq FROM objects o WHERE ${where.sql}`).all(...where.params) as { seq: number }[]).map((r) => r.seq),
      );
    },
    async sorted(seqs, by, order) {
      const column = by === 'title' ? 'o.title COLLATE NOCASE' : 'o.updated_at';
      const dir = order === 'desc' ? 'DESC' : 'ASC';
      return (
        prepare(
          `SELECT o.seq AS seq FROM objects o WHERE o.seq IN (SELECT value FROM json_each(?)) ORDER BY ${column} ${dir}, o.seq DESC`,
        ).all(byJson(seqs)) as { seq: number }[]
      ).map((r) => r.seq);
    },
    async objects(seqs) {
      const rows = prepare(`SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.seq IN (SELECT value FROM json_each(?))`).all(byJson(seqs));
      return new Map(rows.map((r) => toObject(r as never)).map((o): [number, ObjectRecord] => [o.seq, o]));
    },
    async firstChunks(seqs) {
      const rows = prepare(
        `SELECT object_seq AS seq, id, text FROM chunks WHERE object_seq IN (SELECT value FROM json_each(?)) AND idx = 0`,
      ).all(byJson(seqs));
      return new Map((rows as { seq: number; id: number; text: string }[]).map((r) => [r.seq, { id: r.id, text: r.text }]));
    },
    async chunkTexts(ids) {
      const rows = prepare(`SELECT id, object_seq AS seq, idx, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))`).all(
        byJson(ids),
      );
      return new Map((rows as { id: number; seq: number; idx: number; text: string }[]).map((r) => [r.id, r]));
    },
    async facets(seqs, fields) {
      return prepare(`SELECT object_seq AS seq, field, value FROM terms
          WHERE object_seq IN (SELECT value FROM json_each(?)) AND field IN (${fields.map(() => '?').join(', ')})`).all(
        byJson(seqs),
        ...fields,
      ) as { seq: number; field: string; value: string }[];
    },
  };
}
