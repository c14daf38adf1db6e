import type { SearchStore, VectorFormat } from '../../../core/search/ports';
import { DAY, FORMAT, prepared, sel, T0, vectorOf, type Opened } from './store-fixtures';

/** What the in-memory indexes follow (passages, changes, vectors, the data version) and what reindex writes. */
export function feedCases(s: () => Opened) {
  describe('feeds', () => {
    const passageIds = (store: SearchStore, tenant: string) => store.feeds.chunksSince(tenant, 0, 1000).map((c) => c.id);

    it('feeds each tenant its passages of live objects in id order, from where a reader left off', () => {
      const { one, two } = s();
      const a = one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two'] }));
      const b = one.objects.insert(prepared({ tenant: 'tb', title: 'B', passages: ['b one'] }));
      const c = two.objects.insert(prepared({ title: 'C', passages: ['c one'] }));
      const all = two.feeds.chunksSince('ta', 0, 100);
      expect(all.map((p) => [p.seq, p.title, p.text])).toEqual([[a, 'A', 'a one'], [a, 'A', 'a two'], [c, 'C', 'c one']]);
      expect(all.map((p) => p.id)).toEqual([...all.map((p) => p.id)].sort((x, y) => x - y));
      const firstTwo = one.feeds.chunksSince('ta', 0, 2);
      expect(firstTwo.map((p) => p.text)).toEqual(['a one', 'a two']);
      expect(one.feeds.chunksSince('ta', firstTwo[1]!.id, 100).map((p) => p.text)).toEqual(['c one']);
      expect(one.feeds.chunksSince('tb', 0, 100).map((p) => [p.seq, p.text])).toEqual([[b, 'b one']]);
      expect(one.feeds.liveChunks(a, all[0]!.id).map((p) => [p.text, p.title])).toEqual([['a one', 'A']]);
      expect(one.feeds.liveChunks(a, all[2]!.id).map((p) => p.text)).toEqual(['a one', 'a two']);
      expect(one.feeds.tenants().sort()).toEqual(['ta', 'tb']);
    });

    it('feeds each tenant the objects changed or deleted after they were added, in order; a new reader starts at the latest', () => {
      const { one, two } = s();
      const pa = prepared({ title: 'A' });
      const a = one.objects.insert(pa);
      const b = one.objects.insert(prepared({ title: 'B' }));
      const px = prepared({ tenant: 'tb', title: 'X' });
      const x = one.objects.insert(px);
      expect(two.feeds.changesSince('ta', 0)).toEqual([]);
      expect(two.feeds.lastChange('ta')).toBe(0);
      one.objects.update(a, { ...pa.fields, title: 'A2' }, false, 'alice', T0 + DAY, true);
      two.objects.remove(b, {}, 'alice', T0 + DAY);
      one.objects.update(x, px.fields, false, 'alice', T0 + DAY, false);
      const changes = two.feeds.changesSince('ta', 0);
      expect(changes.map((ch) => ch.seq)).toEqual([a, b]);
      expect(changes[0]!.id).toBeLessThan(changes[1]!.id);
      expect(two.feeds.changesSince('ta', changes[0]!.id).map((ch) => ch.seq)).toEqual([b]);
      expect(one.feeds.lastChange('ta')).toBe(changes[1]!.id);
      expect(one.feeds.changesSince('ta', one.feeds.lastChange('ta'))).toEqual([]);
      expect(one.feeds.changesSince('tb', 0).map((ch) => ch.seq)).toEqual([x]);
      // The renamed object's passages carry its new title.
      expect(one.feeds.liveChunks(a, Number.MAX_SAFE_INTEGER).map((p) => p.title)).toEqual(['A2']);
    });

    it('feeds each tenant the vectors of one embedder in passage order, dense or sparse, as written', () => {
      const { one, two } = s();
      const a = one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two', 'a three'] }));
      one.objects.insert(prepared({ tenant: 'tb', title: 'B' }));
      const ids = passageIds(two, 'ta');
      const vectors = two.feeds.vectorsSince('ta', 0, FORMAT, 100);
      expect(vectors.map((v) => [v.id, v.seq, [...v.vector]])).toEqual(ids.map((id, i) => [id, a, [...vectorOf(i)]]));
      expect(two.feeds.vectorsSince('ta', ids[0]!, FORMAT, 1).map((v) => v.id)).toEqual([ids[1]]);
      expect(two.feeds.vectorsSince('ta', 0, { ...FORMAT, id: 'another-embedder' }, 100)).toEqual([]);

      const SPARSE: VectorFormat = { id: 'sparse-8d', dimensions: 8, sparse: true };
      const sparse = Float32Array.from([0, 0.5, 0, 0, -1, 0, 0, 0.25]);
      one.objects.insert({ ...prepared({ tenant: 'tc', title: 'S' }), embedderId: SPARSE.id, sparseVectors: true, vectors: [sparse] });
      expect(two.feeds.vectorsSince('tc', 0, SPARSE, 10).map((v) => [...v.vector])).toEqual([[...sparse]]);
    });

    it('reindexes: every passage in pages, one vector each (a new embedder\'s replaces the old), and a new generation', () => {
      const { one, two } = s();
      one.objects.insert(prepared({ title: 'A', passages: ['a one', 'a two'] }));
      one.objects.insert(prepared({ tenant: 'tb', title: 'B', passages: ['b one'] }));
      one.objects.insert(prepared({ title: 'C', passages: ['c one'] }));
      expect(two.admin.chunkCount()).toBe(4);
      const page = two.admin.chunkPage(0, 3);
      expect(page.map((p) => [p.title, p.text])).toEqual([['A', 'a one'], ['A', 'a two'], ['B', 'b one']]);
      expect(two.admin.chunkPage(page[2]!.id, 3).map((p) => p.text)).toEqual(['c one']);

      const NEXT: VectorFormat = { id: 'next-embedder', dimensions: 4, sparse: false };
      const generation = one.feeds.vectorsGeneration();
      const ta = passageIds(one, 'ta');
      two.admin.writeVectors(NEXT, ta.map((chunkId, i) => ({ chunkId, vector: Float32Array.from([0, 0, i, 1]) })));
      expect(one.feeds.vectorsSince('ta', 0, NEXT, 10).map((v) => [...v.vector])).toEqual([[0, 0, 0, 1], [0, 0, 1, 1], [0, 0, 2, 1]]);
      expect(one.feeds.vectorsSince('ta', 0, FORMAT, 10)).toEqual([]);
      expect(one.feeds.vectorsSince('tb', 0, FORMAT, 10)).toHaveLength(1);
      expect(one.feeds.vectorsGeneration()).toBe(generation);
      two.admin.bumpVectorsGeneration();
      expect(one.feeds.vectorsGeneration()).toBeGreaterThan(generation);
    });

    it('moves the data version on every write, seen by every handle, and never on a read', () => {
      const { one, two } = s();
      const p = prepared({ title: 'A', passages: ['alpha'] });
      let seq = 0;
      const writes: [string, () => void][] = [
        ['insert', () => void (seq = one.objects.insert(p))],
        ['update', () => one.objects.update(seq, { ...p.fields, title: 'A2' }, false, 'alice', T0 + DAY, true)],
        ['putSource', () => void one.objects.putSource({ ...prepared({ title: 'S' }), sourceKey: '/s', contentHash: 'h' }, () => ({}))],
        ['remove', () => void one.objects.remove(seq, {}, 'alice', T0 + DAY)],
        ['writeVectors', () => one.admin.writeVectors(FORMAT, [{ chunkId: passageIds(one, 'ta')[0]!, vector: vectorOf(9) }])],
        ['bumpVectorsGeneration', () => one.admin.bumpVectorsGeneration()],
      ];
      for (const [name, write] of writes) {
        const before = [one.feeds.dataVersion(), two.feeds.dataVersion()];
        one.queries.allowed(sel('ta'));
        two.feeds.chunksSince('ta', 0, 10);
        expect([name, one.feeds.dataVersion(), two.feeds.dataVersion()]).toEqual([name, ...before]);
        write();
        const after = [one.feeds.dataVersion(), two.feeds.dataVersion()];
        expect([name, after[0] !== before[0], after[1] !== before[1]]).toEqual([name, true, true]);
      }
    });
  });
}
