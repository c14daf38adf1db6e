import { decodeCursor, encodeCursor, etagOf, keysetOf, keysetPage, pageOf, versionFrom } from '../../../../core/shared/admin/paging';

interface Row {
  id: string;
  name: string;
  n: number;
}
const rows: Row[] = Array.from({ length: 125 }, (_, i) => ({ id: `id-${String(i).padStart(3, '0')}`, name: `name-${i % 7}`, n: i % 5 }));
const opts = { keyOf: (r: Row) => r.id, sorts: { id: (r: Row) => r.id, name: (r: Row) => r.name, n: (r: Row) => r.n } };

function all(sort?: string, limit = 20): Row[] {
  const out: Row[] = [];
  let cursor: string | undefined;
  do {
    const page = pageOf(rows, { sort, limit, cursor }, opts);
    expect(page.total).toBe(rows.length);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

describe('admin list pages', () => {
  it.each([undefined, 'name', '-name', 'n', '-n'])('gives every item exactly once, in order, sorted by %s', (sort) => {
    const got = all(sort);
    expect(got).toHaveLength(rows.length);
    expect(new Set(got.map((r) => r.id)).size).toBe(rows.length);
    const field = (sort ?? 'id').replace('-', '') as keyof Row;
    const sign = sort?.startsWith('-') ? -1 : 1;
    for (let i = 1; i < got.length; i++) {
      const a = got[i - 1][field];
      const b = got[i][field];
      expect(a === b || (a < b ? sign === 1 : sign === -1)).toBe(true);
    }
  });

  it('continues from a cursor even when the list changed meanwhile (another replica added items)', () => {
    const first = pageOf(rows, { limit: 10 }, opts);
    const grown = [...rows, { id: 'id-009a', name: 'x', n: 0 }];
    const next = pageOf(grown, { limit: 10, cursor: first.nextCursor! }, opts);
    expect(next.items[0].id).toBe('id-009a');
    expect(next.items.some((r) => first.items.includes(r))).toBe(false);
  });

  it('refuses bad limits, unknown sorts and forged cursors with 400', () => {
    for (const ask of [
      { limit: 0 },
      { limit: 201 },
      { limit: 1.5 },
      { sort: 'secret' },
      { cursor: 'not-base64-json' },
      { cursor: Buffer.from('{"a":1}').toString('base64url') },
    ])
      expect(() => pageOf(rows, ask, opts)).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });

  it('reads ETags as versions', () => {
    expect(etagOf(3)).toBe('"3"');
    expect(versionFrom('"3"')).toBe(3);
    expect(versionFrom('W/"12"')).toBe(12);
    expect(versionFrom('*')).toBeUndefined();
    expect(versionFrom(undefined)).toBeUndefined();
    expect(() => versionFrom('3')).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });
});

/** A store's keyset page over `rows` as SQL would read it: sorted, after the position, `limit + 1`. */
function storePage(keyset: ReturnType<typeof keysetOf<'id' | 'name' | 'n'>>) {
  const sign = keyset.desc ? -1 : 1;
  const cmp = (a: string | number, b: string | number) => (a === b ? 0 : a < b ? -1 : 1);
  const order = (a: [string | number, string], b: [string | number, string]) => sign * cmp(a[0], b[0]) || cmp(a[1], b[1]);
  const pos = (r: Row): [string | number, string] => [r[keyset.sort], r.id];
  const sorted = [...rows].sort((a, b) => order(pos(a), pos(b)));
  const rest = keyset.after ? sorted.filter((r) => order(pos(r), keyset.after!) > 0) : sorted;
  return { records: rest.slice(0, keyset.limit + 1), total: rows.length };
}
const kinds = { id: 'string', name: 'string', n: 'number' } as const;

describe('keyset pages (lists a store pages itself)', () => {
  it.each([undefined, 'name', '-name', 'n', '-n'])('give the pages, cursors and totals pageOf gives, sorted by %s', (sort) => {
    for (const limit of [1, 7, 50]) {
      let cursor: string | undefined;
      do {
        const expected = pageOf(rows, { sort, limit, cursor }, opts);
        const keyset = keysetOf({ sort, limit, cursor }, kinds);
        const got = keysetPage(storePage(keyset), keyset, (r) => [r[keyset.sort], r.id]);
        expect(got).toEqual(expected);
        cursor = got.nextCursor ?? undefined;
      } while (cursor);
    }
  });

  it('reads the ask as pageOf does: the default sort first, desc with a minus, limit 50 by default', () => {
    expect(keysetOf({}, kinds)).toEqual({ sort: 'id', desc: false, limit: 50 });
    const cursor = encodeCursor([3, 'id-007']);
    expect(keysetOf({ sort: '-n', limit: 7, cursor }, kinds)).toEqual({ sort: 'n', desc: true, limit: 7, after: [3, 'id-007'] });
    expect(decodeCursor(cursor)).toEqual([3, 'id-007']);
  });

  it("refuses what pageOf refuses, and a cursor whose value is not of the sort (another sort's, forged) with 400", () => {
    for (const ask of [
      { limit: 0 },
      { limit: 201 },
      { limit: 1.5 },
      { sort: 'secret' },
      { cursor: 'not-base64-json' },
      { cursor: Buffer.from('{"a":1}').toString('base64url') },
      { sort: 'n', cursor: encodeCursor(['name-1', 'id-001']) },
      { sort: 'n', cursor: Buffer.from('[1e999, "id-001"]').toString('base64url') },
      { sort: 'name', cursor: encodeCursor([3, 'id-001']) },
      { sort: 'name', cursor: encodeCursor([null, 'id-001']) },
      { sort: 'name', cursor: encodeCursor([true, 'id-001']) },
      { sort: 'name', cursor: encodeCursor(['name\u0000', 'id-001']) },
      { sort: 'name', cursor: encodeCursor(['name-1', 'id\u0000']) },
    ])
      expect(() => keysetOf(ask, kinds)).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });

  it('answers no cursor on the last page, and none for an empty one', () => {
    expect(keysetPage({ records: [rows[0], rows[1]], total: 2 }, { limit: 2 }, (r) => [r.id, r.id])).toEqual({
      items: [rows[0], rows[1]],
      nextCursor: null,
      total: 2,
    });
    expect(keysetPage({ records: [], total: 9 }, { limit: 2 }, (r: Row) => [r.id, r.id])).toEqual({
      items: [],
      nextCursor: null,
      total: 9,
    });
  });
});
