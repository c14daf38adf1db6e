import { Kind, type GraphQLFormattedError, type SelectionSetNode } from 'graphql';
import { deferLabel, PLACEHOLDER, type DeferredFragment, type StreamedList } from './document';

/**
 * The payloads of an operation delivered in parts, in the format of the 2022-08-24 `@defer` draft
 * that Apollo Client (Defer20220824Handler), urql, Apollo's router and Hive Gateway speak: first
 * `{data, errors?, hasNext: true}`, then `{incremental: [{data, path, label?, errors?}], hasNext}`,
 * the last with `hasNext: false`.
 */
export type Path = readonly (string | number)[];
type Data = Record<string, unknown>;

export interface IncrementalItem {
  data: Data | null;
  path: Path;
  label?: string;
  errors?: GraphQLFormattedError[];
}

/** The rest of a streamed list, from index `path`'s last. */
export interface StreamItems {
  items: unknown[];
  path: Path;
  label?: string;
}

export type Payload =
  | { data?: Data | null; errors?: GraphQLFormattedError[]; hasNext: boolean }
  | { incremental?: (IncrementalItem | StreamItems)[]; hasNext: boolean };

const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `data` without the placeholder keys that stood for selection sets emptied of their deferred fragments. */
export function withoutPlaceholders<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutPlaceholders) as T;
  if (!isObject(value)) return value;
  const out: Data = {};
  for (const [k, v] of Object.entries(value)) if (k !== PLACEHOLDER) out[k] = withoutPlaceholders(v);
  return out as T;
}

/** Every concrete path (list indexes included) where `keys` lead to an object in `data`. */
export function concretePaths(data: unknown, keys: readonly string[]): Path[] {
  let at: { path: Path; value: unknown }[] = [{ path: [], value: data }];
  const spread = (p: Path, v: unknown): { path: Path; value: unknown }[] =>
    Array.isArray(v) ? v.flatMap((item, i) => spread([...p, i], item)) : [{ path: p, value: v }];
  for (const key of keys) {
    at = at.flatMap(({ path, value }) => (isObject(value) && key in value ? spread([...path, key], value[key]) : []));
  }
  return at.filter(({ value }) => isObject(value)).map(({ path }) => path);
}

export function valueAt(data: unknown, path: Path): unknown {
  let v = data;
  for (const key of path) v = v === null || typeof v !== 'object' ? undefined : (v as Record<string | number, unknown>)[key];
  return v;
}

/** The response keys a fragment selects on `object` (those of fragments delivered apart left out), with their values. */
export function pick(object: Data, set: SelectionSetNode, apart: ReadonlySet<string>): Data {
  const out: Data = {};
  const visit = (s: SelectionSetNode) => {
    for (const sel of s.selections) {
      if (sel.kind === Kind.FIELD) {
        const key = (sel.alias ?? sel.name).value;
        if (key in object) out[key] = object[key];
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const label = deferLabel(sel);
        if (label === undefined || !apart.has(label)) visit(sel.selectionSet);
      }
    }
  };
  visit(set);
  return out;
}

const startsWith = (path: Path | undefined, prefix: Path) => !!path && prefix.every((k, i) => path[i] === k);

/**
 * A deferred fragment's items: one per object it applies to in the data before it (`before`), its
 * fields from the part's data (`after`); `data: null` where the part's errors nulled that object.
 * Each error goes with the item its path is under (the first item when none).
 */
export function itemsOf(
  fragment: DeferredFragment,
  before: unknown,
  after: unknown,
  errors: GraphQLFormattedError[],
  apart: ReadonlySet<string>,
): IncrementalItem[] {
  const items: IncrementalItem[] = [];
  for (const path of concretePaths(before, fragment.path)) {
    const value = valueAt(after, path);
    const data = isObject(value) ? pick(value, fragment.selectionSet, apart) : null;
    items.push({ data, path, ...(fragment.clientLabel !== undefined ? { label: fragment.clientLabel } : {}) });
  }
  if (errors.length && !items.length) items.push({ data: null, path: [] });
  for (const error of errors) {
    const owner = items.reduce<IncrementalItem | undefined>(
      (best, item) => (startsWith(error.path, item.path) && (!best || item.path.length > best.path.length) ? item : best),
      undefined,
    );
    ((owner ?? items[0]).errors ??= []).push(error);
  }
  return items;
}

/**
 * The initial data with each streamed list cut to its `initialCount`, and the rest of each list as
 * its own item (one per list where the path crosses other lists), in document order.
 */
export function streamedOut(data: Data, streams: readonly StreamedList[]): { data: Data; rest: StreamItems[] } {
  if (!streams.length) return { data, rest: [] };
  const shown = structuredClone(data);
  const rest: StreamItems[] = [];
  for (const stream of streams) {
    const key = stream.path[stream.path.length - 1];
    for (const at of concretePaths(shown, stream.path.slice(0, -1))) {
      const parent = valueAt(shown, at) as Data;
      const list = parent[key];
      if (!Array.isArray(list) || list.length <= stream.initialCount) continue;
      parent[key] = list.slice(0, stream.initialCount);
      rest.push({
        items: list.slice(stream.initialCount),
        path: [...at, key, stream.initialCount],
        ...(stream.clientLabel !== undefined ? { label: stream.clientLabel } : {}),
      });
    }
  }
  return { data: shown, rest };
}
