import { DAY, prepared, sel, T0, titles, type Opened } from './store-fixtures';

/** Full-text matches, listings, orderings and lookups by number. */
export function queryCases(s: () => Opened) {
  describe('index queries', () => {
    it('matches passages: every word, each as a prefix; the title counts; each object once, with its best passage', async () => {
      const { one, two } = s();
      const glaciers = prepared({
        title: 'Glaciers',
        passages: ['Mountains in winter.', 'Glaciers retreat as the climate warms.', 'Glaciers thin.'],
      });
      const seaIce = prepared({ title: 'Sea ice', passages: ['The climate warms and sea ice retreats, glaciers too.'] });
      const gseq = await one.objects.insert(glaciers);
      await one.objects.insert(seaIce);
      await one.objects.insert(
        prepared({ tenant: 'tb', title: 'Glaciers elsewhere', passages: ['Glaciers retreat as the climate warms.'] }),
      );
      const both = await two.queries.chunks(sel('ta'), { mode: 'all', words: ['glacier', 'retreat'] });
      expect(
        await titles(
          two,
          both.map((m) => m.seq),
        ),
      ).toEqual(['Glaciers', 'Sea ice']);
      // Ranked best first by a relevance where larger is better.
      expect(both[0].raw).toBeGreaterThanOrEqual(both[1].raw);
      const best = both.find((m) => m.seq === gseq)!;
      expect((await two.queries.chunkTexts([best.chunkId!])).get(best.chunkId!)).toMatchObject({
        seq: gseq,
        idx: 1,
        text: 'Glaciers retreat as the climate warms.',
      });
      expect(await two.queries.chunks(sel('ta'), { mode: 'all', words: ['clim'] })).toHaveLength(2);
      // Every word in one passage (its title counts as part of it), not spread over an object's passages.
      expect(
        await titles(
          two,
          (await two.queries.chunks(sel('ta'), { mode: 'all', words: ['sea', 'mountains'] })).map((m) => m.seq),
        ),
      ).toEqual([]);
      expect(
        await titles(
          two,
          (await two.queries.chunks(sel('ta'), { mode: 'all', words: ['glaciers', 'mountains'] })).map((m) => m.seq),
        ),
      ).toEqual(['Glaciers']);
    });

    it("matches phrases as adjacent words in order, and takes a caller's words only as words", async () => {
      const { one, two } = s();
      await one.objects.insert(prepared({ title: 'Ice and bread', passages: ['Bread and ice, ice and bread.'] }));
      await one.objects.insert(prepared({ title: 'Bread', passages: ['Bread is not ice.'] }));
      expect(
        await titles(
          two,
          (await two.queries.chunks(sel('ta'), { mode: 'phrase', words: ['ice', 'and', 'bread'] })).map((m) => m.seq),
        ),
      ).toEqual(['Ice and bread']);
      expect(
        await titles(
          two,
          (await two.queries.fields(sel('ta'), { mode: 'phrase', words: ['ice', 'and', 'bread'] })).map((m) => m.seq),
        ),
      ).toEqual(['Ice and bread']);
      expect(await two.queries.fields(sel('ta'), { mode: 'phrase', words: ['bread', 'ice'] })).toEqual([]);
      for (const word of ['bread"', 'title:bread', 'NEAR(bread', '*', 'bread)']) {
        await expect(two.queries.chunks(sel('ta'), { mode: 'all', words: [word] })).resolves.toHaveProperty('length');
      }
    });

    it('matches fields: title, file name and tags', async () => {
      const { one, two } = s();
      await one.objects.insert(prepared({ title: 'Report', fileName: 'puffins.pdf', passages: ['Nothing here.'] }));
      await one.objects.insert(prepared({ title: 'Notes', tags: ['puffins'], passages: ['Nothing here either.'] }));
      await one.objects.insert(prepared({ title: 'Text only', passages: ['Puffins dive.'] }));
      const found = await two.queries.fields(sel('ta'), { mode: 'all', words: ['puffins'] });
      expect(
        await titles(
          two,
          found.map((m) => m.seq),
        ),
      ).toEqual(['Notes', 'Report']);
      expect(found.every((m) => m.chunkId === null)).toBe(true);
    });

    it('lists the last updated first, sorts by a field, and looks objects and passages up by number', async () => {
      const { one, two } = s();
      const beta = prepared({
        title: 'beta',
        now: T0,
        passages: ['First of beta.', 'Second of beta.'],
        tags: ['x', 'y'],
        objectType: 'Report',
      });
      const a = await one.objects.insert(beta);
      const b = await one.objects.insert(prepared({ title: 'Alpha', now: T0 + DAY, tags: ['x'] }));
      const c = await one.objects.insert(prepared({ title: 'gamma', now: T0 + DAY }));
      expect(await two.queries.listing(sel('ta'))).toEqual([c, b, a]);
      await one.objects.update(a, beta.fields, false, 'alice', T0 + 2 * DAY, false);
      expect(await two.queries.listing(sel('ta'))).toEqual([a, c, b]);
      expect(await two.queries.sorted([a, b, c], 'title', 'asc')).toEqual([b, a, c]);
      expect(await two.queries.sorted([a, b, c], 'title', 'desc')).toEqual([c, a, b]);
      expect(await two.queries.sorted([a, b, c], 'updated_at', 'desc')).toEqual([a, c, b]);
      expect(await two.queries.sorted([b, c], 'updated_at', 'asc')).toEqual([c, b]);
      expect([...(await two.queries.objects([a, c])).keys()].sort()).toEqual([a, c].sort());
      const first = await two.queries.firstChunks([a, b]);
      expect(first.get(a)?.text).toBe('First of beta.');
      expect(first.get(b)?.text).toBe('A passage about Alpha.');
      expect((await two.queries.chunkTexts([first.get(a)!.id])).get(first.get(a)!.id)).toMatchObject({
        seq: a,
        idx: 0,
        text: 'First of beta.',
      });
      const facets = (await two.queries.facets([a, b], ['tags', 'object_type'])).map((f) => `${f.seq}:${f.field}=${f.value}`).sort();
      expect(facets).toEqual([`${a}:object_type=Report`, `${a}:tags=x`, `${a}:tags=y`, `${b}:object_type=Document`, `${b}:tags=x`].sort());
    });
  });
}
