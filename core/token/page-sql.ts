import type { Keyset } from '../shared/admin/paging';

/** How one list's page is read: the engine's column expressions and how it binds what it compares. */
export interface PageSqlSpec<S extends string> {
  table: string;
  /** The engine's placeholder for the n-th parameter (from 1): `?` or `$n`. */
  placeholder: (n: number) => string;
  /** Each sort's expression (in the order `pageOf` compares: lower case, binary) and how a cursor's value is bound against it. */
  sorts: Record<S, { expr: string; bind?: (value: string | number) => unknown }>;
  /** The key breaking ties, always ascending (in binary order). */
  key: string;
}

export interface PageSql {
  rows: { sql: string; params: unknown[] };
  count: { sql: string; params: unknown[] };
}

/**
 * The two statements of a page (core/shared/admin/paging.ts `Keyset`): the rows after the cursor's
 * position, `limit + 1` of them, in the list's order; and how many match `filters` over every page.
 * `filters` gives its conditions, binding each value it compares through `bind` (never into the
 * text). The position is a range on the sort expression then the key, so an index on (realm,
 * sort, key) starts the page where it begins instead of reading past the pages before it.
 */
export function pageSql<S extends string>(
  spec: PageSqlSpec<S>,
  keyset: Keyset<S>,
  filters: (bind: (value: unknown) => string) => string[],
): PageSql {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return spec.placeholder(params.length);
  };
  const where = filters(bind);
  const count = { sql: `SELECT count(*) AS total FROM ${spec.table} WHERE ${where.join(' AND ')}`, params: [...params] };
  const { expr, bind: bindValue = (v) => v } = spec.sorts[keyset.sort];
  if (keyset.after) {
    const [value, key] = keyset.after;
    const [from, past] = keyset.desc ? ['<=', '<'] : ['>=', '>'];
    where.push(`${expr} ${from} ${bind(bindValue(value))}`, `(${expr} ${past} ${bind(bindValue(value))} OR ${spec.key} > ${bind(key)})`);
  }
  const order = `${expr} ${keyset.desc ? 'DESC' : 'ASC'}, ${spec.key} ASC`;
  const sql = `SELECT * FROM ${spec.table} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${bind(keyset.limit + 1)}`;
  return { rows: { sql, params }, count };
}
