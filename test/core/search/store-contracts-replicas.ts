import { ObjectQuotaReached } from '../../../core/search/errors';
import { lexicalSearch } from '../../../core/search/lexical';
import { DAY, prepared, sel, T0, titles, versionMoves, type Opened } from './store-fixtures';

/**
 * What replicas need of a store both write to: each sees the other's writes in its feeds (and its
 * data version moves), a reader that stopped reads on from where it was, and the decisions taken
 * inside a write (the quota, ingest's keep-replace-add) hold however the writes interleave.
 */
export function replicaCases(s: () => Opened) {
  describe('replicas', () => {
    it('sees an object written through the other handle in its feeds and its full-text index', async () => {
      const { one, two } = s();
      const index = lexicalSearch(two.feeds);
      expect(await index.passages('ta', 'puffins', () => true)).toEqual([]);
      const before = two.feeds.dataVersion();
      const seq = await one.objects.insert(prepared({ title: 'Puffins', passages: ['Puffins nest in burrows.'] }));
      expect(await versionMoves(two, before)).toBe(true);
      expect((await two.feeds.chunksSince('ta', 0, 10)).map((c) => [c.seq, c.text])).toEqual([[seq, 'Puffins nest in burrows.']]);
      expect((await index.passages('ta', 'puffins burrows', () => true)).map((p) => p.seq)).toEqual([seq]);
    });

    it('sees a delete made through the other handle: in the changes, the passages and the full-text index', async () => {
      const { one, two } = s();
      const index = lexicalSearch(two.feeds);
      const seq = await one.objects.insert(prepared({ title: 'Gannets', passages: ['Gannets plunge into the sea.'] }));
      expect((await index.passages('ta', 'gannets', () => true)).map((p) => p.seq)).toEqual([seq]);
      const before = two.feeds.dataVersion();
      expect(await one.objects.remove(seq, {}, 'bob', T0 + DAY)).toBe(true);
      expect(await versionMoves(two, before)).toBe(true);
      expect((await two.feeds.changesSince('ta', 0)).map((c) => c.seq)).toEqual([seq]);
      expect(await two.feeds.liveChunks(seq, Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(await index.passages('ta', 'gannets', () => true)).toEqual([]);
      expect(await two.feeds.tenants()).toEqual([]);
    });

    it('lets a reader that was down read on from where it was: what was added, changed and deleted meanwhile', async () => {
      const { one, two } = s();
      const kept = prepared({ title: 'Kept', passages: ['kept one'] });
      const keptSeq = await one.objects.insert(kept);
      const goneSeq = await one.objects.insert(prepared({ title: 'Gone', passages: ['gone one'] }));
      // Where the reader was when it stopped.
      const seenChunk = (await two.feeds.chunksSince('ta', 0, 100)).at(-1)!.id;
      const seenChange = await two.feeds.lastChange('ta');
      // Meanwhile, through the other handle.
      const added = await one.objects.insert(prepared({ title: 'Added', passages: ['added one', 'added two'] }));
      await one.objects.update(keptSeq, { ...kept.fields, title: 'Renamed' }, false, 'alice', T0 + DAY, true);
      await one.objects.remove(goneSeq, {}, 'alice', T0 + DAY);
      expect((await two.feeds.chunksSince('ta', seenChunk, 100)).map((c) => [c.seq, c.text])).toEqual([
        [added, 'added one'],
        [added, 'added two'],
      ]);
      expect((await two.feeds.changesSince('ta', seenChange)).map((c) => c.seq)).toEqual([keptSeq, goneSeq]);
      expect((await two.feeds.liveChunks(keptSeq, seenChunk)).map((c) => c.title)).toEqual(['Renamed']);
      expect(await two.feeds.liveChunks(goneSeq, seenChunk)).toEqual([]);
    });

    it('holds the quota under 50 parallel inserts through both handles: never more live objects than allowed', async () => {
      const { one, two } = s();
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).objects.insert(prepared({ title: `parallel ${i}` }), 20)),
      );
      const refused = results.filter((r) => r.status === 'rejected');
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
      expect(refused).toHaveLength(30);
      for (const r of refused) expect(r.reason).toBeInstanceOf(ObjectQuotaReached);
      expect((await one.queries.allowed(sel('ta'))).size).toBe(20);
      expect((await two.queries.listing(sel('ta'))).length).toBe(20);
    });

    it('decides ingest inside the write under parallel calls through both handles: one adds, the others find it or replace it', async () => {
      const { one, two } = s();
      const same = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? one : two).objects.putSource(
            { ...prepared({ title: `same ${i}` }), sourceKey: '/docs/same.txt', contentHash: 'h' },
            () => ({}),
          ),
        ),
      );
      expect(same.filter((r) => r.outcome === 'created')).toHaveLength(1);
      expect(same.filter((r) => r.outcome === 'unchanged')).toHaveLength(9);
      expect(new Set(same.map((r) => r.id)).size).toBe(1);

      const versions = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? one : two).objects.putSource(
            { ...prepared({ title: `v${i}` }), sourceKey: '/docs/changing.txt', contentHash: `h${i % 3}` },
            () => ({ is_deleted: true }),
          ),
        ),
      );
      expect(versions.filter((r) => r.outcome === 'created')).toHaveLength(1);
      const live = await two.objects.bySource('ta', '/docs/changing.txt');
      expect(versions.map((r) => r.id)).toContain(live!.id);
      // Exactly one live object per source file, and each replaced version was soft-deleted.
      expect(await titles(one, await one.queries.allowed(sel('ta')))).toEqual(
        [(await one.objects.get('ta', live!.id))!.title, (await one.objects.get('ta', same[0].id))!.title].sort(),
      );
      const replaced = versions.filter((r) => r.outcome === 'replaced').length;
      expect(await two.feeds.changesSince('ta', 0)).toHaveLength(replaced);
    });
  });
}
