import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';

/**
 * Two ingests of one folder through two connections to one search.db, interleaved at every await
 * (text extraction, embedding): both see no earlier version, both prepare the file, and the store
 * decides inside its write transaction, so the second finds the first's object instead of failing
 * on the unique source key.
 */
describe('ingesting the same files twice at once', () => {
  const root = mkdtempSync(join(tmpdir(), 'search-ingest-race-'));
  const docs = join(root, 'docs');
  const file = join(root, 'search.db');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeAll(() => {
    mkdirSync(docs);
    for (const n of ['a', 'b', 'c']) writeFileSync(join(docs, `${n}.txt`), `Puffins nest in burrows, note ${n}.`);
  });

  const live = (core: ReturnType<typeof openSearchCore>) =>
    core.db!.prepare('SELECT source_key AS k, count(*) AS n FROM objects WHERE deleted_at IS NULL GROUP BY source_key').all() as {
      k: string;
      n: number;
    }[];

  it('one adds each file, the other reports it unchanged; after a change one replaces it', async () => {
    const [one, two] = [openSearchCore({ stores: sqliteSearchStores(file) }), openSearchCore({ stores: sqliteSearchStores(file) })];
    try {
      const first = await Promise.all([one.admin.ingest(docs, { tenant: 't' }), two.admin.ingest(docs, { tenant: 't' })]);
      expect(first.map((r) => r.created).sort()).toEqual([0, 3]);
      expect(first.map((r) => r.unchanged).sort()).toEqual([0, 3]);
      expect(first[0].objects).toEqual(first[1].objects);

      writeFileSync(join(docs, 'a.txt'), 'Puffins changed their minds.');
      const second = await Promise.all([one.admin.ingest(docs, { tenant: 't' }), two.admin.ingest(docs, { tenant: 't' })]);
      expect(second.map((r) => r.replaced).sort()).toEqual([0, 1]);
      expect(second.map((r) => r.unchanged).sort()).toEqual([2, 3]);
      expect(second[0].objects).toEqual(second[1].objects);
      expect(live(one)).toEqual(['a', 'b', 'c'].map((n) => ({ k: join(docs, `${n}.txt`), n: 1 })));
    } finally {
      await one.close();
      await two.close();
    }
  });
});
