import { queryWords } from '../../shared/text/words';
import type { IndexFeeds } from '../ports';
import { Bm25Index, type PassageScore } from './bm25';
import { tokens } from '../../shared/text/tokenize';

/**
 * Full-text ranking from in-memory BM25 indexes, one per tenant (a query can only reach its own
 * tenant's passages), built from the store on first use and kept in step with it: before a search,
 * when the store's data version moved, passages added since and objects changed or deleted since
 * are applied, whichever process wrote them.
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

export function lexicalSearch(feeds: IndexFeeds) {
  const tenants = new Map<string, Tenant>();

  const addChunk = (t: Tenant, c: { id: number; text: string; title: string }, seq: number) =>
    t.index.add(c.id, seq, tokens(c.title), tokens(c.text));

  const tenantIndex = (tenant: string): Tenant => {
    let t = tenants.get(tenant);
    if (!t || t.index.deadShare > REBUILD_AT_DEAD_SHARE) {
      t = { index: new Bm25Index(), seenChunk: 0, seenChange: feeds.lastChange(tenant), version: '' };
      tenants.set(tenant, t);
    }
    return t;
  };

  const catchUp = (tenant: string): Tenant => {
    const now = feeds.dataVersion();
    const current = tenants.get(tenant);
    if (current?.version === now) return current;
    const t = tenantIndex(tenant);
    // Changed objects first, re-added with the passages already seen; newer passages come next.
    for (const ch of feeds.changesSince(tenant, t.seenChange)) {
      t.index.removeObject(ch.seq);
      for (const c of feeds.liveChunks(ch.seq, t.seenChunk)) addChunk(t, c, ch.seq);
      t.seenChange = ch.id;
    }
    for (let batch = feeds.chunksSince(tenant, t.seenChunk, 2000); batch.length; batch = feeds.chunksSince(tenant, t.seenChunk, 2000)) {
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
      const batch = feeds.chunksSince(tenant, t.seenChunk, 200);
      for (const c of batch) {
        addChunk(t, c, c.seq);
        t.seenChunk = c.id;
      }
      return batch.length > 0;
    },
  };
}

export type LexicalSearch = ReturnType<typeof lexicalSearch>;
