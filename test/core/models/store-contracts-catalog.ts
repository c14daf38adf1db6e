import { randomUUID } from 'node:crypto';
import { Catalog, DEFAULT_CATALOG, type CatalogModel } from '../../../core/models/catalog/catalog';
import type { CatalogStore, CatalogWrite } from '../../../core/models/catalog/catalog-store';
import type { Opened } from '../../shared/two-handles';

const [localChat] = Catalog.parse(DEFAULT_CATALOG).models;
/** An entry under a new id: cases keep apart by their ids, so they may share a database. */
const entry = (id: string, more: Partial<CatalogModel> = {}): CatalogModel => ({ ...localChat, id, ...more });

/**
 * The contract every adapter of CatalogStore passes (core/models/catalog/catalog-store.ts): `open`
 * gives two handles on one backing store (two workers, or two replicas on one database).
 */
export function catalogStoreContract(name: string, open: () => Promise<Opened<CatalogStore>>) {
  describe(`CatalogStore contract: ${name}`, () => {
    let s: Opened<CatalogStore>;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(() => s.close());
    const w = (id: string, more: Partial<CatalogWrite> = {}): CatalogWrite => ({
      id,
      entry: entry(id),
      active: true,
      at: s.now(),
      by: 'admin',
      ...more,
    });

    it('writes whatever is there (`any`): a new row at the first version, then one version more each time; seen by the other handle', async () => {
      const id = `m-${randomUUID()}`;
      const first = await s.one.write(w(id), 'any', 2);
      expect(first).toEqual({ id, entry: entry(id), active: true, version: 2, updatedAt: s.now(), updatedBy: 'admin' });
      const second = await s.two.write(w(id, { entry: entry(id, { contextLength: 100 }), by: 'other' }), 'any', 2);
      expect(second).toMatchObject({ version: 3, updatedBy: 'other', entry: { contextLength: 100 } });
      expect((await s.one.list()).find((r) => r.id === id)).toEqual(second);
    });

    it("a write without an entry keeps the row's (a change of state); a new row without one has none (the file's stays)", async () => {
      const id = `m-${randomUUID()}`;
      expect(await s.one.write(w(id, { entry: undefined, active: false }), 'any', 2)).toMatchObject({
        entry: null,
        active: false,
        version: 2,
      });
      await s.one.write(w(id, { entry: entry(id, { status: 'Beta' }) }), 'any', 2);
      const off = await s.two.write(w(id, { entry: undefined, active: false }), { version: 3 }, 2);
      expect(off).toMatchObject({ entry: { status: 'Beta' }, active: false, version: 4 });
    });

    it('`absent` writes only a new row; `{version}` only over the row at that version', async () => {
      const id = `m-${randomUUID()}`;
      expect(await s.one.write(w(id), { version: 1 }, 1)).toBeUndefined();
      expect(await s.one.write(w(id), 'absent', 2)).toMatchObject({ version: 2 });
      expect(await s.two.write(w(id), 'absent', 2)).toBeUndefined();
      expect(await s.two.write(w(id), { version: 1 }, 2)).toBeUndefined();
      expect(await s.two.write(w(id), { version: 2 }, 2)).toMatchObject({ version: 3 });
      expect(await s.one.write(w(id), { version: 2 }, 2)).toBeUndefined();
    });

    it('of many writes at once over the same version, exactly one applies', async () => {
      const id = `m-${randomUUID()}`;
      await s.one.write(w(id), 'any', 1);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? s.one : s.two).write(w(id, { by: `admin-${i}` }), { version: 1 }, 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const starts = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? s.one : s.two).write(w(`${id}-new`), 'absent', 1)));
      expect(starts.filter(Boolean)).toHaveLength(1);
    });

    it('the generation moves with every write of either handle, and is the sum of the versions', async () => {
      const before = await s.one.generation();
      const id = `m-${randomUUID()}`;
      await s.one.write(w(id), 'any', 1);
      const one = await s.two.generation();
      expect(one).toBeGreaterThan(before);
      await s.two.write(w(id, { active: false, entry: undefined }), 'any', 1);
      const two = await s.one.generation();
      expect(two).toBeGreaterThan(one);
      const rows = await s.two.list();
      expect(rows.reduce((n, r) => n + r.version, 0)).toBe(await s.two.generation());
    });
  });
}
