import type { Opened } from './store-fixtures';
import { DAY, prepared, T0 } from './store-fixtures';

/** What the admin API reads of tenants (core/search/admin-api.ts): per-tenant counts, and one tenant's passages to re-embed. */
export function adminCases(s: () => Opened) {
  describe("tenants' documents", () => {
    it('counts live, private and deleted objects, their passages, bytes, repos and folders, per tenant', async () => {
      const { one, two } = s();
      const t = `docs-${process.pid}-a`;
      await one.objects.insert(
        prepared({ tenant: t, title: 'A', passages: ['a1', 'a2'], size: 100, repos: ['r1'], folders: ['f1', 'f2'], now: T0 }),
      );
      await one.objects.insert(
        prepared({ tenant: t, title: 'B', passages: ['b1'], size: 50, repos: ['r1', 'r2'], isPrivate: true, now: T0 + DAY }),
      );
      const gone = await one.objects.insert(
        prepared({ tenant: t, title: 'C', passages: ['c1', 'c2', 'c3'], size: 7, repos: ['r3'], now: T0 + 2 * DAY }),
      );
      await one.objects.remove(gone, {}, 'alice', T0 + 3 * DAY);
      await one.objects.insert(prepared({ tenant: `${t}-other`, title: 'D', passages: ['d1'], size: 1 }));
      const want = {
        tenant: t,
        documents: 2,
        privateDocuments: 1,
        deletedDocuments: 1,
        passages: 3,
        bytes: 150,
        repos: 2,
        folders: 2,
        lastUpdatedAt: T0 + DAY,
      };
      expect(await two.admin.tenantDocuments(t)).toEqual([want]);
      const all = await two.admin.tenantDocuments();
      expect(all.find((e) => e.tenant === t)).toEqual(want);
      expect(all.find((e) => e.tenant === `${t}-other`)).toMatchObject({ documents: 1, passages: 1, bytes: 1 });
      expect(all.map((e) => e.tenant)).toEqual([...all.map((e) => e.tenant)].sort());
    });

    it('lists a tenant with no objects with zeros when asked for it', async () => {
      const { two } = s();
      expect(await two.admin.tenantDocuments(`docs-${process.pid}-none`)).toEqual([
        {
          tenant: `docs-${process.pid}-none`,
          documents: 0,
          privateDocuments: 0,
          deletedDocuments: 0,
          passages: 0,
          bytes: 0,
          repos: 0,
          folders: 0,
          lastUpdatedAt: null,
        },
      ]);
    });

    it("pages one tenant's passages of live objects, in id order", async () => {
      const { one, two } = s();
      const t = `docs-${process.pid}-pages`;
      await one.objects.insert(prepared({ tenant: t, title: 'A', passages: ['a1', 'a2'] }));
      await one.objects.insert(prepared({ tenant: `${t}-x`, title: 'X', passages: ['x1'] }));
      const gone = await one.objects.insert(prepared({ tenant: t, title: 'G', passages: ['g1'] }));
      await one.objects.insert(prepared({ tenant: t, title: 'B', passages: ['b1'] }));
      await one.objects.remove(gone, {}, 'alice', T0);
      expect(await two.admin.chunkCount(t)).toBe(3);
      const first = await two.admin.chunkPage(0, 2, t);
      expect(first.map((p) => [p.title, p.text])).toEqual([
        ['A', 'a1'],
        ['A', 'a2'],
      ]);
      expect((await two.admin.chunkPage(first[1].id, 2, t)).map((p) => p.text)).toEqual(['b1']);
    });
  });
}
