import { queryWords } from '../../shared/text/words';
import { lanes } from '../lanes';
import type { IndexFeeds } from '../ports';
import { Bm25Index, type PassageScore } from './bm25';
import { tokens } from '../../shared/text/tokenize';

/**
 * Full-text ranking from in-memory BM25 indexes, one per tenant (a query can only reach its own
 * tenant's passages), built from the store on first use and kept in step with it: before a search,
 * when the store's data version moved, passages added since and objects changed or deleted since
 * are applied, whichever process wrote them. A tenant's catch-ups and warm-up slices run one at a
 * time (its lane); a search whose tenant is already up to date does not wait for anything.
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
  const inLane = lanes();

  const addChunk = (t: Tenant, c: { id: number; text: string; title: string }, seq: number) =>
    t.index.add(c.id, seq, tokens(c.title), tokens(c.text));

  const tenantIndex = async (tenant: string): Promise<Tenant> => {
    let t = tenants.get(tenant);
    if (!t || t.index.deadShare > REBUILD_AT_DEAD_SHARE) {
      t = { index: new Bm25Index(), seenChunk: 0, seenChange: await feeds.lastChange(tenant), version: '' };
      tenants.set(tenant, t);
    }
    return t;
  };

  const catchUp = (tenant: string): Tenant | Promise<Tenant> => {
    const current = tenants.get(tenant);
    if (current && current.version === feeds.dataVersion()) return current;
    return inLane(tenant, async () => {
      const now = feeds.dataVersion();
      const t = await tenantIndex(tenant);
      if (t.version === now) return t;
      // Changed objects first, re-added with the passages already seen; newer passages come next.
      for (const ch of await feeds.changesSince(tenant, t.seenChange)) {
        t.index.removeObject(ch.seq);
        for (const c of await feeds.liveChunks(ch.seq, t.seenChunk)) addChunk(t, c, ch.seq);
        t.seenChange = ch.id;
      }
      for (
        let batch = await feeds.chunksSince(tenant, t.seenChunk, 2000);
        batch.length;
        batch = await feeds.chunksSince(tenant, t.seenChunk, 2000)
      ) {
        for (const c of batch) {
          addChunk(t, c, c.seq);
          t.seenChunk = c.id;
        }
      }
      t.version = now;
      return t;
    });
  };

  return {
    /** The tenants whose index this process holds. */
    held: (): string[] => [...tenants.keys()],
    /** Objects and passages this process holds indexed, all tenants together. */
    counts(): { objects: number; passages: number } {
      let objects = 0,
        passages = 0;
      for (const { index } of tenants.values()) {
        objects += index.objects;
        passages += index.size;
      }
      return { objects, passages };
    },
    /** An estimate of the memory the tenants' indexes hold (memory.ts). */
    memoryBytes(): number {
      let bytes = 0;
      for (const { index } of tenants.values()) bytes += index.memoryBytes;
      return bytes;
    },
    /** Every passage of the tenant matching a query word, with its BM25 score, among objects `accept` lets through. */
    async passages(tenant: string, query: string, accept: (seq: number) => boolean): Promise<PassageScore[]> {
      const terms = queryTerms(query);
      return terms.length ? (await catchUp(tenant)).index.search(terms, accept) : [];
    },
    /** Indexes one batch of a tenant's passages not yet indexed; false once there are none (warming up in slices). */
    warm: (tenant: string): Promise<boolean> =>
      inLane(tenant, async () => {
        const t = await tenantIndex(tenant);
        // Small slices: a search waiting behind one waits a few milliseconds.
        const batch = await feeds.chunksSince(tenant, t.seenChunk, 200);
        for (const c of batch) {
          addChunk(t, c, c.seq);
          t.seenChunk = c.id;
        }
        return batch.length > 0;
      }),
  };
}

export type LexicalSearch = ReturnType<typeof lexicalSearch>;
