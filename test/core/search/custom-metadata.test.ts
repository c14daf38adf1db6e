import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { openSearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { foldCustom, splitCustom } from '../../../core/search/custom-metadata';
import type { ObjectFields } from '../../../core/search/types';

const A: Ctx<Caller> = {
  caller: {
    realm: 'r',
    subject: 'u',
    tenantId: 't',
    roles: ['search:read', 'search:write'],
    scopes: [],
    clientId: 'c',
    username: 'u',
    sessionId: 's',
    tokenId: 'k',
    expiresAt: 0,
    audience: ['search'],
    bearer: 'x',
  },
};

describe("custom_metadata and the object's tags, kvp and taxonomy", () => {
  it('moves them out of custom_metadata and combines them with the top-level ones', () => {
    expect(
      foldCustom({ tags: ['a', 'b'], kvp: { k: 1, j: 2 }, customMetadata: { tags: ['b', 'c'], kvp: { k: 0, m: 3 }, note: 'n' } }),
    ).toEqual({ tags: ['a', 'b', 'c'], kvp: { k: 1, j: 2, m: 3 }, customMetadata: { note: 'n' } });
    expect(foldCustom({ taxonomy: { a: 1 }, customMetadata: { taxonomy: { a: 2, b: 2 } } }).taxonomy).toEqual({ a: 1, b: 2 });
    expect(foldCustom({ taxonomy: [{ a: 1 }], customMetadata: { taxonomy: { b: 2 } } }).taxonomy).toEqual([{ a: 1 }, { b: 2 }]);
    expect(foldCustom<Partial<ObjectFields>>({ customMetadata: { tags: 'one' } }).tags).toEqual(['one']);
    // A patch that names none of them leaves them absent (the stored ones stay).
    expect(foldCustom({ customMetadata: { note: 'n' } })).toEqual({ customMetadata: { note: 'n' } });
  });

  it('leaves a value of the wrong shape as an ordinary key rather than losing it', () => {
    expect(splitCustom({ tags: [1], kvp: 'x', taxonomy: 3 })).toEqual({ own: {}, rest: { tags: [1], kvp: 'x', taxonomy: 3 } });
  });

  it('folds objects stored before, once, keeping their update time; filters and shows them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-fold-'));
    const file = join(dir, 'search.db');
    try {
      const before = openSearchCore({ stores: sqliteSearchStores(file) });
      const o = await before.service.createObject({ content: 'Herons stand still in shallow water.', tags: ['top'] }, A);
      // As an earlier version stored it: custom_metadata's tags and kvp kept as ordinary keys.
      before
        .db!.prepare('UPDATE objects SET custom_metadata = ? WHERE id = ?')
        .run(JSON.stringify({ tags: ['old'], kvp: { pond: 'big' }, note: 'n' }), o.id);
      before.db!.prepare("DELETE FROM meta WHERE key = 'custom_metadata_folded'").run();
      await before.close();

      const after = openSearchCore({ stores: sqliteSearchStores(file) });
      try {
        const found = await after.service.search(
          { mode: 'fulltext', query: 'herons', filters: { customMetadata: { tags: ['old'], kvp: { pond: 'big' } } }, offset: 0, limit: 5 },
          A,
        );
        expect(found.hits.map((h) => h.object.id)).toEqual([o.id]);
        const shown = found.hits[0].object;
        expect(shown).toMatchObject({ tags: ['top', 'old'], kvp: { pond: 'big' }, updatedAt: o.updatedAt });
        expect(shown.customMetadata).toEqual({ note: 'n', tags: ['top', 'old'], kvp: { pond: 'big' }, taxonomy: {} });
        const basic = await after.service.search({ mode: 'basic', query: 'old', filters: {}, offset: 0, limit: 5 }, A);
        expect(basic.total).toBe(1);
        expect((after.db!.prepare('SELECT custom_metadata AS c FROM objects WHERE id = ?').get(o.id) as { c: string }).c).toBe(
          '{"note":"n"}',
        );
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
