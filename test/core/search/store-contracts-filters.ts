import type { Filters } from '../../../core/search/types';
import { DAY, prepared, sel, T0, titles, type Opened } from './store-fixtures';

/** Each filter, alone and together, as every selection read applies it (core/search/filters.ts says what each means). */
export function filterCases(s: () => Opened) {
  describe('filters', () => {
    const seed = async (o: Opened) => {
      await o.one.objects.insert(
        prepared({
          title: 'Glacier Survey 100%',
          fileName: 'glacier.pdf',
          fileExtension: 'pdf',
          objectType: 'Report',
          tags: ['ice', 'science'],
          folders: ['north'],
          repos: ['r1'],
          kvp: { region: 'arctic', year: 2020 },
          taxonomy: { topic: { area: 'climate' } },
          systemMetadata: { licence: 'cc-by' },
          customMetadata: { note: 'n1' },
          mediaMetadata: { lang: 'en' },
          sourceSystemMetadata: { source_url: 's1' },
          extUserIdRef: 'u-1',
          size: 100,
          now: T0,
          passages: ['Ice sheets of the north.'],
        }),
      );
      await o.one.objects.insert(
        prepared({
          title: 'Bread_basics',
          fileName: 'bread.md',
          fileExtension: 'md',
          tags: ['food'],
          folders: ['south'],
          repos: ['r2'],
          kvp: { region: 'alps' },
          taxonomy: [{ topic: 'baking' }],
          systemMetadata: { licence: 'mit' },
          customMetadata: { note: 'n2' },
          mediaMetadata: { lang: 'fr' },
          sourceSystemMetadata: { source_url: 's2' },
          extUserIdRef: 'u-2',
          size: 200,
          now: T0 + DAY,
          passages: ['Bread of the south, with ice water.'],
        }),
      );
      await o.one.objects.insert(
        prepared({
          title: 'Ice and bread',
          tags: ['ice', 'food'],
          kvp: { region: 'arctic' },
          size: 300,
          now: T0 + 2 * DAY,
          passages: ['Ice and bread.'],
        }),
      );
      // Another tenant's object meets every filter below that names a value: it never appears.
      await o.one.objects.insert(
        prepared({
          tenant: 'tb',
          title: 'Bread_basics Survey 100%',
          fileName: 'glacier.pdf',
          tags: ['ice', 'food'],
          kvp: { region: 'arctic' },
          size: 200,
          now: T0 + DAY,
        }),
      );
    };
    const allowed = async (o: Opened, filters: Filters) => await titles(o.two, await o.two.queries.allowed(sel('ta', 'alice', filters)));
    const G = 'Glacier Survey 100%';
    const B = 'Bread_basics';
    const I = 'Ice and bread';
    const at = (days: number) => new Date(T0 + days * DAY);

    it('applies each filter: lists match one of their values, metadata each of its leaves', async () => {
      const o = s();
      await seed(o);
      const ids = [...(await o.one.queries.allowed(sel('ta')))];
      const byTitle = new Map([...(await o.one.queries.objects(ids)).values()].map((r) => [r.title, r.id]));
      const cases: [Filters, string[]][] = [
        [{}, [B, G, I]],
        [{ objectIds: [byTitle.get(G)!, byTitle.get(I)!, 'unknown'] }, [G, I]],
        [{ tags: ['ice'] }, [G, I]],
        [{ tags: ['science', 'food'] }, [B, G, I]],
        [{ folders: ['north'] }, [G]],
        [{ repos: ['r2'] }, [B]],
        [{ objectTypes: ['Report'] }, [G]],
        [{ fileExtensions: ['md'] }, [B]],
        [{ fileNames: ['glacier.pdf'] }, [G]],
        [{ title: 'survey' }, [G]],
        [{ title: 'BREAD' }, [B, I]],
        [{ title: '100%' }, [G]],
        [{ title: '%' }, [G]],
        [{ title: '_' }, [B]],
        [{ size: 200 }, [B]],
        [{ extUserIdRef: 'u-2' }, [B]],
        [{ kvp: { region: 'arctic' } }, [G, I]],
        [{ kvp: { region: 'arctic', year: 2020 } }, [G]],
        [{ kvp: { region: ['alps', 'arctic'] } }, [B, G, I]],
        [{ taxonomy: { topic: { area: 'climate' } } }, [G]],
        [{ taxonomy: { topic: 'baking' } }, [B]],
        [{ systemMetadata: { licence: 'mit' } }, [B]],
        [{ customMetadata: { note: 'n1' } }, [G]],
        [{ customMetadata: { tags: ['food'] } }, [B, I]],
        [{ customMetadata: { kvp: { region: 'alps' } } }, [B]],
        [{ mediaMetadata: { lang: 'fr' } }, [B]],
        [{ sourceSystemMetadata: { source_url: 's1' } }, [G]],
        [{ createdBetween: [at(1), null] }, [B, I]],
        [{ createdBetween: [null, at(1)] }, [B, G]],
        [{ createdBetween: [at(1), at(1)] }, [B]],
        [{ modifiedBetween: [at(2), null] }, [I]],
        [{ deletedBetween: [at(0), null] }, []],
        [{ tags: ['nothing-has-this'] }, []],
        [{ tags: ['ice'], kvp: { region: 'arctic' }, createdBetween: [at(1), null] }, [I]],
      ];
      for (const [filters, expected] of cases)
        expect([JSON.stringify(filters), await allowed(o, filters)]).toEqual([JSON.stringify(filters), expected]);
    });

    it('filters listings and full-text matches inside the query', async () => {
      const o = s();
      await seed(o);
      const filtered = sel('ta', 'alice', { tags: ['food'] });
      expect(await titles(o.two, await o.two.queries.listing(filtered))).toEqual([B, I]);
      expect(
        await titles(
          o.two,
          (await o.two.queries.chunks(filtered, { mode: 'all', words: ['ice'] })).map((m) => m.seq),
        ),
      ).toEqual([B, I]);
      expect(
        await titles(
          o.two,
          (await o.two.queries.fields(filtered, { mode: 'all', words: ['bread'] })).map((m) => m.seq),
        ),
      ).toEqual([B, I]);
      expect(await o.two.queries.fields(sel('ta', 'alice', { folders: ['north'] }), { mode: 'all', words: ['bread'] })).toEqual([]);
    });
  });
}
