import { preparedLru, type Db } from '../shared/sqlite';
import type { Where } from './filters';
import { OBJECT_COLUMNS, toObject, type ObjectRow } from './sqlite-rows';
import type { Aggregations, Bucket, SortField } from './types';

/**
 * The index queries: each joins the full-text match (or nothing, for listings) with the filter
 * clause over `objects o`, so tenant, privacy and filters are applied by SQLite inside the query.
 * Scores are BM25 negated (larger is better); the service normalises them.
 */
export interface Match {
  seq: number;
  raw: number;
  /** The object's best-matching passage, when the match was over passages. */
  chunkId: number | null;
}

const AGG_FIELDS = ['object_type', 'file_extension', 'tags', 'repos', 'folders'] as const;
const BUCKETS_PER_FIELD = 20;

const toMatch = (r: unknown) => {
  const m = r as { seq: number; raw: number; chunk_id: number | null };
  return { seq: m.seq, raw: m.raw, chunkId: m.chunk_id ?? null };
};

/**
 * `version` changes whenever search.db may have changed; the two caches below (filter results and
 * aggregation facets) are dropped then, so they never answer from stale data.
 */
export function sqliteSearch(db: Db, version: () => string = () => '') {
  const prepare = preparedLru(db);
  const byJson = (ids: readonly number[]) => JSON.stringify(ids);
  let cachedAt = '';
  const allowedCache = new Map<string, Set<number>>();
  const facets = new Map<number, [keyof Aggregations, string][]>();
  const fresh = () => {
    const now = version();
    if (now === cachedAt) return;
    allowedCache.clear();
    facets.clear();
    cachedAt = now;
  };

  return {
    /** Objects whose passages (text and title) match, each with its best passage (BM25: title 2, text 1). */
    chunks(where: Where, match: string): Match[] {
      // MATERIALIZED: bm25() cannot run inside the aggregate the planner would otherwise fold it into.
      return prepare(`WITH m AS MATERIALIZED (
          SELECT c.object_seq AS seq, -bm25(chunk_fts, 2.0, 1.0) AS s, c.id AS chunk_id
          FROM chunk_fts JOIN chunks c ON c.id = chunk_fts.rowid JOIN objects o ON o.seq = c.object_seq
          WHERE chunk_fts MATCH ? AND ${where.sql})
        SELECT seq, max(s) AS raw, chunk_id FROM m GROUP BY seq ORDER BY raw DESC`).all(match, ...where.params).map(toMatch);
    },
    /** Objects whose title, file name or tags match (basic search). */
    fields(where: Where, match: string): Match[] {
      return prepare(`SELECT o.seq AS seq, -bm25(object_fts, 3.0, 2.0, 1.0) AS raw, NULL AS chunk_id
        FROM object_fts JOIN objects o ON o.seq = object_fts.rowid
        WHERE object_fts MATCH ? AND ${where.sql} ORDER BY raw DESC`).all(match, ...where.params).map(toMatch);
    },
    /** Every object the filters let through, newest first (a listing: basic search without words). */
    listing(where: Where): Match[] {
      return prepare(`SELECT o.seq AS seq, 1.0 AS raw, NULL AS chunk_id FROM objects o WHERE ${where.sql} ORDER BY o.updated_at DESC, o.seq DESC`)
        .all(...where.params).map(toMatch);
    },
    /** Every object the filter clause lets through (the candidates of in-memory indexes), cached until the data changes. */
    allowed(where: Where): Set<number> {
      fresh();
      const key = `${where.sql}\u0000${JSON.stringify(where.params)}`;
      let set = allowedCache.get(key);
      if (set) {
        allowedCache.delete(key);
      } else {
        set = new Set((prepare(`SELECT o.seq AS seq FROM objects o WHERE ${where.sql}`).all(...where.params) as { seq: number }[]).map((r) => r.seq));
        if (allowedCache.size >= 64) allowedCache.delete(allowedCache.keys().next().value!);
      }
      allowedCache.set(key, set);
      return set;
    },
    /** `seqs` ordered by a field instead of relevance (ties: newest first). */
    sorted(seqs: readonly number[], by: SortField, order: 'asc' | 'desc'): number[] {
      const column = by === 'title' ? 'o.title COLLATE NOCASE' : 'o.updated_at';
      const dir = order === 'desc' ? 'DESC' : 'ASC';
      return (prepare(`SELECT o.seq AS seq FROM objects o WHERE o.seq IN (SELECT value FROM json_each(?)) ORDER BY ${column} ${dir}, o.seq DESC`)
        .all(byJson(seqs)) as { seq: number }[]).map((r) => r.seq);
    },
    objects(seqs: readonly number[]): Map<number, ObjectRow> {
      const rows = prepare(`SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.seq IN (SELECT value FROM json_each(?))`).all(byJson(seqs));
      return new Map(rows.map((r) => toObject(r as never)).map((o) => [o.seq, o]));
    },
    /** The first passage of each object, for snippets of objects matched without a passage. */
    firstChunks(seqs: readonly number[]): Map<number, { id: number; text: string }> {
      const rows = prepare(`SELECT object_seq AS seq, id, text FROM chunks WHERE object_seq IN (SELECT value FROM json_each(?)) AND idx = 0`).all(byJson(seqs));
      return new Map((rows as { seq: number; id: number; text: string }[]).map((r) => [r.seq, { id: r.id, text: r.text }]));
    },
    chunkTexts(ids: readonly number[]): Map<number, { seq: number; idx: number; text: string }> {
      const rows = prepare(`SELECT id, object_seq AS seq, idx, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))`).all(byJson(ids));
      return new Map((rows as { id: number; seq: number; idx: number; text: string }[]).map((r) => [r.id, r]));
    },
    /** Term buckets (Elasticsearch style) over the whole match set, most frequent first. */
    aggregations(seqs: readonly number[]): Aggregations {
      fresh();
      const missing = seqs.filter((seq) => !facets.has(seq));
      if (missing.length) {
        for (const seq of missing) facets.set(seq, []);
        const rows = prepare(`SELECT object_seq AS seq, field, value FROM terms
            WHERE object_seq IN (SELECT value FROM json_each(?)) AND field IN (${AGG_FIELDS.map(() => '?').join(', ')})`)
          .all(byJson(missing), ...AGG_FIELDS) as { seq: number; field: keyof Aggregations; value: string }[];
        for (const r of rows) facets.get(r.seq)!.push([r.field, r.value]);
      }
      const counts = new Map<string, { field: keyof Aggregations; key: string; n: number }>();
      for (const seq of seqs) {
        for (const [field, key] of facets.get(seq)!) {
          const id = `${field}\u0000${key}`;
          const c = counts.get(id);
          if (c) c.n++;
          else counts.set(id, { field, key, n: 1 });
        }
      }
      const out = Object.fromEntries(AGG_FIELDS.map((f) => [f, [] as Bucket[]])) as Aggregations;
      const sorted = [...counts.values()].sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const c of sorted) if (out[c.field].length < BUCKETS_PER_FIELD) out[c.field].push({ key: c.key, doc_count: c.n });
      return out;
    },
  };
}

export type SearchIndex = ReturnType<typeof sqliteSearch>;
