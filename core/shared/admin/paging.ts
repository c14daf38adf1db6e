import { BadRequest } from '../errors';

/**
 * Pages of an admin list (docs/admin.md): `limit` (1-200, default 50), an opaque `cursor` from the
 * previous page, `sort` (a field, `-field` for descending). The order is total (ties broken by the
 * object's key), so a page read from one replica continues on another.
 */
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

export interface PageAsk {
  limit?: number;
  cursor?: string;
  /** `field` or `-field`. */
  sort?: string;
}

export interface Page<T> {
  items: T[];
  /** Where the next page starts, null on the last one. */
  nextCursor: string | null;
  /** How many match the filters, over every page. */
  total: number;
}

type Sortable = string | number | boolean | null | undefined;

const compare = (a: Sortable, b: Sortable): number => {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return a < b ? -1 : 1;
};

const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
function decode(cursor: string): [Sortable, string] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[1] === 'string' && (v[0] === null || typeof v[0] !== 'object'))
      return v as [Sortable, string];
  } catch {
    // answered below
  }
  throw new BadRequest('cursor: not one this list gave');
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequest(`limit: a whole number from 1 to ${MAX_PAGE}`);
  return limit;
}

/** `field` or `-field` of `names` (default the first), or 400 naming them all. */
function sortOf<S extends string>(raw: string | undefined, names: readonly S[]): { field: S; desc: boolean } {
  const sort = raw ?? names[0];
  const desc = sort.startsWith('-');
  const field = (desc ? sort.slice(1) : sort) as S;
  if (!names.includes(field)) throw new BadRequest(`sort: one of ${names.flatMap((n) => [n, `-${n}`]).join(', ')}`);
  return { field, desc };
}

/**
 * One page of `items` (already filtered): sorted by `ask.sort` (one of `sorts`, default the first)
 * then by `keyOf`, starting after the cursor's position.
 */
export function pageOf<T>(
  items: readonly T[],
  ask: PageAsk,
  opts: { keyOf: (t: T) => string; sorts: Record<string, (t: T) => Sortable> },
): Page<T> {
  const limit = checkLimit(ask.limit ?? DEFAULT_PAGE);
  const { field, desc } = sortOf(ask.sort, Object.keys(opts.sorts));
  const valueOf = opts.sorts[field];
  const sign = desc ? -1 : 1;
  const order = (a: [Sortable, string], b: [Sortable, string]) => sign * compare(a[0], b[0]) || compare(a[1], b[1]);
  const keyed = items.map((t) => ({ t, k: [valueOf(t), opts.keyOf(t)] as [Sortable, string] })).sort((a, b) => order(a.k, b.k));
  const after = ask.cursor ? decode(ask.cursor) : undefined;
  const start = after ? keyed.findIndex((x) => order(x.k, after) > 0) : 0;
  const rest = start < 0 ? [] : keyed.slice(start);
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map((x) => x.t), nextCursor: rest.length > limit && last ? encode(last.k) : null, total: items.length };
}

/**
 * A page as a store reads it itself (keyset paging in SQL, for lists too long to read whole): the
 * rows after `after` (the last position of the previous page: its sort value and key) in the
 * order `pageOf` gives, that is by the sort value (`desc`: descending) and then by the key,
 * always ascending. A store answers up to `limit + 1` of them, the one past the page saying there
 * is a next one.
 */
export interface Keyset<S extends string = string> {
  sort: S;
  desc: boolean;
  after?: [value: string | number, key: string];
  limit: number;
}

/** What a store answers for a `Keyset`: up to `limit + 1` records, and how many match over every page. */
export interface KeysetRows<T> {
  records: T[];
  total: number;
}

/** A position as the cursor `pageOf` gives (base64url JSON `[value, key]`), so either pages a list the same way. */
export const encodeCursor = (position: [value: Sortable, key: string]): string => encode(position);
/** The position a cursor names; 400 for anything no list gave. */
export const decodeCursor = (cursor: string): [value: Sortable, key: string] => decode(cursor);

/**
 * The `Keyset` a list's ask names: `sorts` gives each sort field the type of its values, which a
 * cursor's must be (a forged one is 400, as for `pageOf`). The same limits and messages as `pageOf`.
 */
export function keysetOf<S extends string>(ask: PageAsk, sorts: Record<S, 'string' | 'number'>): Keyset<S> {
  const limit = checkLimit(ask.limit ?? DEFAULT_PAGE);
  const { field, desc } = sortOf(ask.sort, Object.keys(sorts) as S[]);
  if (ask.cursor === undefined) return { sort: field, desc, limit };
  const [value, key] = decode(ask.cursor);
  const fits = sorts[field] === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string';
  // No list's position holds NUL (and PostgreSQL takes none in text).
  if (!fits || `${value}${key}`.includes('\0')) throw new BadRequest('cursor: not one this list gave');
  return { sort: field, desc, limit, after: [value as string | number, key] };
}

/**
 * The page of a store's answer to `keyset`: its first `limit` records, and a cursor after the
 * last of them when the store found one more. `positionOf` gives a record's sort value (as the
 * store compares it) and key.
 */
export function keysetPage<T>(
  found: KeysetRows<T>,
  keyset: Pick<Keyset, 'limit'>,
  positionOf: (t: T) => [value: string | number, key: string],
): Page<T> {
  const items = found.records.slice(0, keyset.limit);
  const last = items[items.length - 1];
  const more = found.records.length > keyset.limit && last !== undefined;
  return { items, nextCursor: more ? encode(positionOf(last)) : null, total: found.total };
}

/** A strong ETag for an object's version, and the version an If-Match names (`*` or absent: any). */
export const etagOf = (version: number): string => `"${version}"`;
export function versionFrom(ifMatch: string | undefined): number | undefined {
  const v = ifMatch?.trim();
  if (!v || v === '*') return undefined;
  const m = /^(?:W\/)?"(\d{1,15})"$/.exec(v);
  if (!m) throw new BadRequest('If-Match: the ETag this object was read with, e.g. "3"');
  return Number(m[1]);
}
