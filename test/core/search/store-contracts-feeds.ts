import type { SearchStore, VectorFormat } from '../../../core/search/ports';
import { DAY, FORMAT, prepared, sel, T0, vectorOf, versionMoves, type Opened } from './store-fixtures';

/** What the in-memory indexes follow (passages, changes, vectors, the data version) and what reindex writes. */
export function feedCases(s: () => Opened) {
  describe('feeds', () => {
    const passageIds = async (store: SearchStore, tenant: string) => (await store.feeds.chunksSince(tenant, 0, 1000)).map((c) => c.id);

    it('feeds each tenant its passages of live objects in id order, from where a reader left off', async () => {
      const { one, two } = s();
      const a = await one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two'] }));
      const b = await one.objects.insert(prepared({ tenant: 'tb', title: 'B', passages: ['b one'] }));
      const c = await two.objects.insert(prepared({ title: 'C', passages: ['c one'] }));
      const all = await two.feeds.chunksSince('ta', 0, 100);
      expect(all.map((p) => [p.seq, p.title, p.text])).toEqual([
        [a, 'A', 'a one'],
        [a, 'A', 'a two'],
        [c, 'C', 'c one'],
      ]);
      expect(all.map((p) => p.id)).toEqual([...all.map((p) => p.id)].sort((x, y) => x - y));
      const firstTwo = await one.feeds.chunksSince('ta', 0, 2);
      expect(firstTwo.map((p) => p.text)).toEqual(['a one', 'a two']);
      expect((await one.feeds.chunksSince('ta', firstTwo[1].id, 100)).map((p) => p.text)).toEqual(['c one']);
      expect((await one.feeds.chunksSince('tb', 0, 100)).map((p) => [p.seq, p.text])).toEqual([[b, 'b one']]);
      expect((await one.feeds.liveChunks(a, all[0].id)).map((p) => [p.text, p.title])).toEqual([['a one', 'A']]);
      expect((await one.feeds.liveChunks(a, all[2].id)).map((p) => p.text)).toEqual(['a one', 'a two']);
      expect((await one.feeds.tenants()).sort()).toEqual(['ta', 'tb']);
    });

    it('feeds each tenant the objects changed or deleted after they were added, in order; a new reader starts at the latest', async () => {
      const { one, two } = s();
      const pa = prepared({ title: 'A' });
      const a = await one.objects.insert(pa);
      const b = await one.objects.insert(prepared({ title: 'B' }));
      const px = prepared({ tenant: 'tb', title: 'X' });
      const x = await one.objects.insert(px);
      expect(await two.feeds.changesSince('ta', 0)).toEqual([]);
      expect(await two.feeds.lastChange('ta')).toBe(0);
      await one.objects.update(a, { ...pa.fields, title: 'A2' }, false, 'alice', T0 + DAY, true);
      await two.objects.remove(b, {}, 'alice', T0 + DAY);
      await one.objects.update(x, px.fields, false, 'alice', T0 + DAY, false);
      const changes = await two.feeds.changesSince('ta', 0);
      expect(changes.map((ch) => ch.seq)).toEqual([a, b]);
      expect(changes[0].id).toBeLessThan(changes[1].id);
      expect((await two.feeds.changesSince('ta', changes[0].id)).map((ch) => ch.seq)).toEqual([b]);
      expect(await one.feeds.lastChange('ta')).toBe(changes[1].id);
      expect(await one.feeds.changesSince('ta', await one.feeds.lastChange('ta'))).toEqual([]);
      expect((await one.feeds.changesSince('tb', 0)).map((ch) => ch.seq)).toEqual([x]);
      // The renamed object's passages carry its new title.
      expect((await one.feeds.liveChunks(a, Number.MAX_SAFE_INTEGER)).map((p) => p.title)).toEqual(['A2']);
    });

    it('prunes the change feed down to its newest rows; readers at the head lose nothing', async () => {
      const { one, two } = s();
      const pa = prepared({ title: 'A' });
      const a = await one.objects.insert(pa);
      const px = prepared({ tenant: 'tb', title: 'X' });
      const x = await one.objects.insert(px);
      await one.objects.update(a, { ...pa.fields, title: 'A2' }, false, 'alice', T0 + DAY, true);
      await one.objects.update(x, px.fields, false, 'alice', T0 + DAY, false);
      const head = await two.feeds.lastChange('tb');
      expect(await one.admin.pruneChanges(1000)).toBe(0);
      expect(await two.admin.pruneChanges(1)).toBeGreaterThan(0);
      expect(await one.feeds.changesSince('ta', 0)).toEqual([]);
      expect((await one.feeds.changesSince('tb', 0)).map((ch) => ch.seq)).toEqual([x]);
      expect(await one.feeds.lastChange('tb')).toBe(head);
      // Writes go on after it, numbered after the head.
      await two.objects.update(a, { ...pa.fields, title: 'A3' }, false, 'alice', T0 + 2 * DAY, true);
      const next = await one.feeds.changesSince('ta', 0);
      expect(next.map((ch) => ch.seq)).toEqual([a]);
      expect(next[0].id).toBeGreaterThan(head);
    });

    it('feeds each tenant the vectors of one embedder in passage order, dense or sparse, as written', async () => {
      const { one, two } = s();
      const a = await one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two', 'a three'] }));
      await one.objects.insert(prepared({ tenant: 'tb', title: 'B' }));
      const ids = await passageIds(two, 'ta');
      const vectors = await two.feeds.vectorsSince('ta', 0, FORMAT, 100);
      expect(vectors.map((v) => [v.id, v.seq, [...v.vector]])).toEqual(ids.map((id, i) => [id, a, [...vectorOf(i)]]));
      expect((await two.feeds.vectorsSince('ta', ids[0], FORMAT, 1)).map((v) => v.id)).toEqual([ids[1]]);
      expect(await two.feeds.vectorsSince('ta', 0, { ...FORMAT, id: 'another-embedder' }, 100)).toEqual([]);

      const SPARSE: VectorFormat = { id: 'sparse-8d', dimensions: 8, sparse: true };
      const sparse = Float32Array.from([0, 0.5, 0, 0, -1, 0, 0, 0.25]);
      await one.objects.insert({
        ...prepared({ tenant: 'tc', title: 'S' }),
        embedderId: SPARSE.id,
        sparseVectors: true,
        vectors: [sparse],
      });
      expect((await two.feeds.vectorsSince('tc', 0, SPARSE, 10)).map((v) => [...v.vector])).toEqual([[...sparse]]);
    });

    it("reindexes: every passage in pages, one vector each (a new embedder's replaces the old), and a new generation", async () => {
      const { one, two } = s();
      await one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two'] }));
      await one.objects.insert(prepared({ tenant: 'tb', title: 'B', passages: ['b one'] }));
      await one.objects.insert(prepared({ title: 'C', passages: ['c one'] }));
      expect(await two.admin.chunkCount()).toBe(4);
      const page = await two.admin.chunkPage(0, 3);
      expect(page.map((p) => [p.title, p.text])).toEqual([
        ['A', 'a one'],
        ['A', 'a two'],
        ['B', 'b one'],
      ]);
      expect((await two.admin.chunkPage(page[2].id, 3)).map((p) => p.text)).toEqual(['c one']);

      const NEXT: VectorFormat = { id: 'next-embedder', dimensions: 4, sparse: false };
      const generation = await one.feeds.vectorsGeneration();
      const ta = await passageIds(one, 'ta');
      await two.admin.writeVectors(
        NEXT,
        ta.map((chunkId, i) => ({ chunkId, vector: Float32Array.from([0, 0, i, 1]) })),
      );
      expect((await one.feeds.vectorsSince('ta', 0, NEXT, 10)).map((v) => [...v.vector])).toEqual([
        [0, 0, 0, 1],
        [0, 0, 1, 1],
        [0, 0, 2, 1],
      ]);
      expect(await one.feeds.vectorsSince('ta', 0, FORMAT, 10)).toEqual([]);
      expect(await one.feeds.vectorsSince('tb', 0, FORMAT, 10)).toHaveLength(1);
      expect(await one.feeds.vectorsGeneration()).toBe(generation);
      await two.admin.bumpVectorsGeneration();
      expect(await one.feeds.vectorsGeneration()).toBeGreaterThan(generation);
    });

    it('moves the data version on every write, seen by every handle, and never on a read', async () => {
      const { one, two } = s();
      const p = prepared({ title: 'A', passages: ['alpha'] });
      let seq = 0;
      const writes: [string, () => Promise<unknown>][] = [
        ['insert', async () => (seq = await one.objects.insert(p))],
        ['update', () => one.objects.update(seq, { ...p.fields, title: 'A2' }, false, 'alice', T0 + DAY, true)],
        ['putSource', () => one.objects.putSource({ ...prepared({ title: 'S' }), sourceKey: '/s', contentHash: 'h' }, () => ({}))],
        ['remove', () => one.objects.remove(seq, {}, 'alice', T0 + DAY)],
        ['writeVectors', async () => one.admin.writeVectors(FORMAT, [{ chunkId: (await passageIds(one, 'ta'))[0], vector: vectorOf(9) }])],
        ['bumpVectorsGeneration', () => one.admin.bumpVectorsGeneration()],
      ];
      for (const [name, write] of writes) {
        const before = [one.feeds.dataVersion(), two.feeds.dataVersion()];
        await one.queries.allowed(sel('ta'));
        await two.feeds.chunksSince('ta', 0, 10);
        expect([name, one.feeds.dataVersion(), two.feeds.dataVersion()]).toEqual([name, ...before]);
        await write();
        // The writing handle's at once; the other's as soon as it hears of the write (SQLite: at once too).
        expect([name, one.feeds.dataVersion() !== before[0]]).toEqual([name, true]);
        expect([name, await versionMoves(two, before[1])]).toEqual([name, true]);
      }
    });
  });
}
