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

/**
 * One page of `items` (already filtered): sorted by `ask.sort` (one of `sorts`, default the first)
 * then by `keyOf`, starting after the cursor's position.
 */
export function pageOf<T>(
  items: readonly T[],
  ask: PageAsk,
  opts: { keyOf: (t: T) => string; sorts: Record<string, (t: T) => Sortable> },
): Page<T> {
  const limit = ask.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequest(`limit: a whole number from 1 to ${MAX_PAGE}`);
  const names = Object.keys(opts.sorts);
  const raw = ask.sort ?? names[0];
  const desc = raw.startsWith('-');
  const field = desc ? raw.slice(1) : raw;
  const valueOf = opts.sorts[field];
  if (!valueOf) throw new BadRequest(`sort: one of ${names.flatMap((n) => [n, `-${n}`]).join(', ')}`);
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

/** A strong ETag for an object's version, and the version an If-Match names (`*` or absent: any). */
export const etagOf = (version: number): string => `"${version}"`;
export function versionFrom(ifMatch: string | undefined): number | undefined {
  const v = ifMatch?.trim();
  if (!v || v === '*') return undefined;
  const m = /^(?:W\/)?"(\d{1,15})"$/.exec(v);
  if (!m) throw new BadRequest('If-Match: the ETag this object was read with, e.g. "3"');
  return Number(m[1]);
}
