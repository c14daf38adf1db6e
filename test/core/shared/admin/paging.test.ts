import { etagOf, pageOf, versionFrom } from '../../../../core/shared/admin/paging';

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
