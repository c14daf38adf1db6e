import { statements, type Db } from '../../shared/sqlite';
import { queryWords } from '../../shared/text/words';
import { Bm25Index, type PassageScore } from './bm25';
import { tokens } from '../../shared/text/tokenize';

/**
 * Full-text ranking from in-memory BM25 indexes, one per tenant (a query can only reach its own
 * tenant's passages), built from search.db on first use and kept in step with it: before a search,
 * when the database changed (search.db's version), passages added since and objects changed or
 * deleted since (the `changes` table) are applied, whichever process wrote them.
 */
interface Tenant {
  index: Bm25Index;
  seenChunk: number;
  seenChange: number;
  version: string;
}

const REBUILD_AT_DEAD_SHARE = 0.25;

/** A query's terms as the index holds them: content words (tokenize.ts). */
export const queryTerms = (query: string): string[] => tokens(queryWords(query).join(' '));

export function lexicalSearch(db: Db, version: () => string) {
  const s = statements(db);
  const newChunks = s.many(`SELECT c.id AS id, c.object_seq AS seq, c.text AS text, o.title AS title FROM chunks c
      JOIN objects o ON o.seq = c.object_seq WHERE o.tenant = ? AND c.id > ? AND o.deleted_at IS NULL ORDER BY c.id LIMIT ?`,
  (r) => ({ id: r.id as number, seq: r.seq as number, text: r.text as string, title: r.title as string }));
  const changes = s.many('SELECT id, object_seq AS seq FROM changes WHERE tenant = ? AND id > ? ORDER BY id',
    (r) => ({ id: r.id as number, seq: r.seq as number }));
  const lastChange = s.one('SELECT coalesce(max(id), 0) AS id FROM changes WHERE tenant = ?', (r) => r.id as number);
  const liveChunks = s.many(`SELECT c.id AS id, c.text AS text, o.title AS title FROM chunks c JOIN objects o ON o.seq = c.object_seq
      WHERE c.object_seq = ? AND c.id <= ? AND o.deleted_at IS NULL ORDER BY c.idx`,
  (r) => ({ id: r.id as number, text: r.text as string, title: r.title as string }));
  const tenants = new Map<string, Tenant>();

  const addChunk = (t: Tenant, c: { id: number; text: string; title: string }, seq: number) =>
    t.index.add(c.id, seq, tokens(c.title), tokens(c.text));

  const tenantIndex = (tenant: string): Tenant => {
    let t = tenants.get(tenant);
    if (!t || t.index.deadShare > REBUILD_AT_DEAD_SHARE) {
      t = { index: new Bm25Index(), seenChunk: 0, seenChange: lastChange(tenant) ?? 0, version: '' };
      tenants.set(tenant, t);
    }
    return t;
  };

  const catchUp = (tenant: string): Tenant => {
    const now = version();
    const current = tenants.get(tenant);
    if (current?.version === now) return current;
    const t = tenantIndex(tenant);
    // Changed objects first, re-added with the passages already seen; newer passages come next.
    for (const ch of changes(tenant, t.seenChange)) {
      t.index.removeObject(ch.seq);
      for (const c of liveChunks(ch.seq, t.seenChunk)) addChunk(t, c, ch.seq);
      t.seenChange = ch.id;
    }
    for (let batch = newChunks(tenant, t.seenChunk, 2000); batch.length; batch = newChunks(tenant, t.seenChunk, 2000)) {
      for (const c of batch) {
        addChunk(t, c, c.seq);
        t.seenChunk = c.id;
      }
    }
    t.version = now;
    return t;
  };

  return {
    /** Every passage of the tenant matching a query word, with its BM25 score, among objects `accept` lets through. */
    passages(tenant: string, query: string, accept: (seq: number) => boolean): PassageScore[] {
      const terms = queryTerms(query);
      return terms.length ? catchUp(tenant).index.search(terms, accept) : [];
    },
    /** Indexes one batch of a tenant's passages not yet indexed; false once there are none (warming up in slices). */
    warm(tenant: string): boolean {
      const t = tenantIndex(tenant);
      // Small slices: a search waiting behind one waits a few milliseconds.
      const batch = newChunks(tenant, t.seenChunk, 200);
      for (const c of batch) {
        addChunk(t, c, c.seq);
        t.seenChunk = c.id;
      }
      return batch.length > 0;
    },
  };
}

export type LexicalSearch = ReturnType<typeof lexicalSearch>;
