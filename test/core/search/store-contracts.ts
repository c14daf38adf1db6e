import { ObjectQuotaReached } from '../../../core/search/errors';
import { adminCases } from './store-contracts-admin';
import type { ObjectRecord } from '../../../core/search/ports';
import { feedCases } from './store-contracts-feeds';
import { filterCases } from './store-contracts-filters';
import { queryCases } from './store-contracts-queries';
import { replicaCases } from './store-contracts-replicas';
import { useOpened } from '../../shared/two-handles';
import { DAY, prepared, sel, T0, titles, type Open, type Opened } from './store-fixtures';

/**
 * The contracts every adapter of the search store's ports passes (core/search/ports.ts), written
 * against the ports only, so the next adapter runs them unchanged. `open` gives a fresh, empty
 * store with two handles on it (two processes).
 */
export function searchStoreContract(name: string, open: Open) {
  describe(`search store contract: ${name}`, () => {
    const s = useStore(open);
    objectCases(s);
    filterCases(s);
    queryCases(s);
    feedCases(s);
    replicaCases(s);
    adminCases(s);
  });
}

export const useStore = (open: Open): (() => Opened) => useOpened(open);

function objectCases(s: () => Opened) {
  describe('objects', () => {
    it('reads back what was written, from either handle, only in its tenant', async () => {
      const { one, two } = s();
      const p = prepared({
        title: 'Glaciers',
        tags: ['ice'],
        kvp: { region: 'arctic' },
        passages: ['Glaciers retreat.', 'Seas rise.'],
        size: 42,
      });
      const seq = await one.objects.insert(p);
      const got = (await two.objects.get('ta', p.id))!;
      expect(got).toMatchObject({
        seq,
        id: p.id,
        tenant: 'ta',
        title: 'Glaciers',
        tags: ['ice'],
        kvp: { region: 'arctic' },
        size: 42,
        chunkCount: 2,
        isPrivate: false,
        createdBy: 'alice',
        updatedBy: 'alice',
        deletedAt: null,
      });
      expect(got.createdAt.getTime()).toBe(T0);
      expect(got.updatedAt.getTime()).toBe(T0);
      expect(await two.objects.get('tb', p.id)).toBeUndefined();
      expect(await two.objects.get('ta', 'no-such-id')).toBeUndefined();
    });

    it("keeps private objects from every selection but their creator's; a lookup by id finds them (the domain decides)", async () => {
      const { one } = s();
      await one.objects.insert(prepared({ title: 'Open climate', passages: ['Climate notes.'] }));
      const secret = prepared({ title: 'Secret climate', passages: ['Climate secrets.'], isPrivate: true, by: 'alice' });
      await one.objects.insert(secret);
      const q = { mode: 'all' as const, words: ['climate'] };
      for (const [subject, expected] of [
        ['alice', ['Open climate', 'Secret climate']],
        ['bob', ['Open climate']],
      ] as const) {
        expect(await titles(one, await one.queries.allowed(sel('ta', subject)))).toEqual(expected);
        expect(await titles(one, await one.queries.listing(sel('ta', subject)))).toEqual(expected);
        expect(
          await titles(
            one,
            (await one.queries.chunks(sel('ta', subject), q)).map((m) => m.seq),
          ),
        ).toEqual(expected);
        expect(
          await titles(
            one,
            (await one.queries.fields(sel('ta', subject), q)).map((m) => m.seq),
          ),
        ).toEqual(expected);
      }
      expect((await one.objects.get('ta', secret.id))?.isPrivate).toBe(true);
    });

    it("pages through an object's passages by chunk index, in SQL, from either handle", async () => {
      const { one, two } = s();
      const texts = ['Zero.', 'One.', 'Two.', 'Three.', 'Four.'];
      const seq = await one.objects.insert(prepared({ title: 'Counting', passages: texts }));
      await one.objects.insert(prepared({ title: 'Other', passages: ['Elsewhere.'] }));
      const all = await two.objects.chunksOf(seq, -1, 10);
      expect(all.map((c) => [c.idx, c.text])).toEqual(texts.map((t, i) => [i, t]));
      expect(new Set(all.map((c) => c.id)).size).toBe(5);
      expect((await two.objects.chunksOf(seq, -1, 2)).map((c) => c.idx)).toEqual([0, 1]);
      expect((await two.objects.chunksOf(seq, 1, 2)).map((c) => c.idx)).toEqual([2, 3]);
      expect((await two.objects.chunksOf(seq, 3, 2)).map((c) => c.idx)).toEqual([4]);
      expect(await two.objects.chunksOf(seq, 4, 2)).toEqual([]);
      const ids = await two.queries.chunkTexts(all.map((c) => c.id));
      expect([...ids.values()].every((c) => c.seq === seq)).toBe(true);
    });

    it("updates the caller's fields, the index entries and, when the title changed, the passages", async () => {
      const { one, two } = s();
      const p = prepared({ title: 'Puffins', tags: ['birds'], passages: ['They dive for fish.'] });
      const seq = await one.objects.insert(p);
      const fields = { ...p.fields, title: 'Seabirds', tags: ['coast'], kvp: { colony: 'north' } };
      await one.objects.update(seq, fields, true, 'bob', T0 + DAY, true);
      expect(await two.objects.get('ta', p.id)).toMatchObject({
        title: 'Seabirds',
        tags: ['coast'],
        kvp: { colony: 'north' },
        isPrivate: true,
        updatedBy: 'bob',
        createdBy: 'alice',
      });
      expect((await two.objects.get('ta', p.id))!.updatedAt.getTime()).toBe(T0 + DAY);
      expect((await two.queries.chunks(sel('ta'), { mode: 'all', words: ['seabirds'] })).map((m) => m.seq)).toEqual([seq]);
      expect(await two.queries.chunks(sel('ta'), { mode: 'all', words: ['puffins'] })).toEqual([]);
      expect((await two.queries.fields(sel('ta'), { mode: 'all', words: ['coast'] })).map((m) => m.seq)).toEqual([seq]);
      expect([...(await two.queries.allowed(sel('ta', 'alice', { tags: ['birds'] })))]).toEqual([]);
      expect([...(await two.queries.allowed(sel('ta', 'alice', { kvp: { colony: 'north' } })))]).toEqual([seq]);
    });

    it('soft-deletes: no lookup, selection or match returns the object again; the record stays for audit', async () => {
      const { one, two } = s();
      const p = prepared({ title: 'Sourdough', passages: ['Sourdough needs a starter.'], sourceKey: '/docs/bread.md', contentHash: 'h1' });
      const seq = await one.objects.insert(p);
      expect(await one.objects.remove(seq, { is_deleted: true, deleted_by: 'bob' }, 'bob', T0 + DAY)).toBe(true);
      expect(await two.objects.remove(seq, { is_deleted: true }, 'bob', T0 + 2 * DAY)).toBe(false);
      const q = { mode: 'all' as const, words: ['sourdough'] };
      expect(await two.objects.get('ta', p.id)).toBeUndefined();
      expect(await two.objects.bySource('ta', '/docs/bread.md')).toBeUndefined();
      expect(await two.admin.sameFile('ta', '/docs/bread.md', 'h1')).toBeUndefined();
      expect((await two.queries.allowed(sel('ta'))).size).toBe(0);
      expect(await two.queries.listing(sel('ta'))).toEqual([]);
      expect(await two.queries.chunks(sel('ta'), q)).toEqual([]);
      expect(await two.queries.fields(sel('ta'), q)).toEqual([]);
      expect(await two.feeds.chunksSince('ta', 0, 100)).toEqual([]);
      expect(await two.feeds.liveChunks(seq, Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(await two.feeds.tenants()).toEqual([]);
      const audit = (await two.queries.objects([seq])).get(seq)!;
      expect(audit).toMatchObject({ id: p.id, updatedBy: 'bob', systemMetadata: { is_deleted: true, deleted_by: 'bob' } });
      expect(audit.deletedAt?.getTime()).toBe(T0 + DAY);
    });

    it('holds each tenant to its quota of live objects, counted across handles; a refused write leaves nothing', async () => {
      const { one, two } = s();
      const first = await one.objects.insert(prepared({ title: 'one' }), 2);
      await two.objects.insert(prepared({ title: 'two' }), 2);
      const refused = prepared({ title: 'three' });
      await expect(one.objects.insert(refused, 2)).rejects.toThrow(ObjectQuotaReached);
      await expect(
        two.objects.putSource({ ...prepared({ title: 'four' }), sourceKey: '/f', contentHash: 'h' }, () => ({}), 2),
      ).rejects.toThrow(ObjectQuotaReached);
      expect(await one.objects.get('ta', refused.id)).toBeUndefined();
      expect(await titles(one, await one.queries.allowed(sel('ta')))).toEqual(['one', 'two']);
      await one.objects.insert(prepared({ title: 'elsewhere', tenant: 'tb' }), 2);
      await one.objects.remove(first, {}, 'alice', T0);
      await two.objects.insert(prepared({ title: 'three' }), 2);
      expect(await titles(two, await two.queries.allowed(sel('ta')))).toEqual(['three', 'two']);
    });

    it('puts by source: created, then unchanged for the same bytes, then replaced, the old version deleted with its metadata', async () => {
      const { one, two } = s();
      const v1 = { ...prepared({ title: 'v1', passages: ['Version one.'] }), sourceKey: '/docs/a.txt', contentHash: 'h1' };
      expect(await one.objects.putSource(v1, () => ({}))).toEqual({ id: v1.id, outcome: 'created' });
      const again = { ...prepared({ title: 'v1 again' }), sourceKey: '/docs/a.txt', contentHash: 'h1' };
      expect(await two.objects.putSource(again, () => ({}))).toEqual({ id: v1.id, outcome: 'unchanged' });
      expect(await two.objects.get('ta', again.id)).toBeUndefined();
      expect(await two.admin.sameFile('ta', '/docs/a.txt', 'h1')).toBe(v1.id);
      const seen: ObjectRecord[] = [];
      const v2 = { ...prepared({ title: 'v2', passages: ['Version two.'], now: T0 + DAY }), sourceKey: '/docs/a.txt', contentHash: 'h2' };
      expect(await two.objects.putSource(v2, (old) => (seen.push(old), { is_deleted: true, replaced_by: 'v2' }))).toEqual({
        id: v2.id,
        outcome: 'replaced',
      });
      expect(seen.map((o) => o.id)).toEqual([v1.id]);
      expect(await one.objects.get('ta', v1.id)).toBeUndefined();
      const old = (await one.queries.objects([seen[0].seq])).get(seen[0].seq)!;
      expect(old.systemMetadata).toEqual({ is_deleted: true, replaced_by: 'v2' });
      expect(old.deletedAt?.getTime()).toBe(T0 + DAY);
      expect(await one.objects.bySource('ta', '/docs/a.txt')).toMatchObject({ id: v2.id, contentHash: 'h2' });
      expect(await one.admin.sameFile('ta', '/docs/a.txt', 'h1')).toBeUndefined();
      expect(await titles(one, await one.queries.allowed(sel('ta')))).toEqual(['v2']);
      // The same path in another tenant is another object.
      const other = { ...prepared({ title: 'theirs', tenant: 'tb' }), sourceKey: '/docs/a.txt', contentHash: 'h2' };
      expect(await one.objects.putSource(other, () => ({}))).toEqual({ id: other.id, outcome: 'created' });
      expect((await one.objects.bySource('ta', '/docs/a.txt'))?.id).toBe(v2.id);
      expect(await one.admin.sameFile('tb', '/docs/a.txt', 'h2')).toBe(other.id);
    });
  });
}
