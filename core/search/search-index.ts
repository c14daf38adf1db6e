import type { IndexQueries, Selection } from './ports';
import type { Aggregations, Bucket } from './types';
import { BYTES, stringBytes } from './memory';

/**
 * The index queries as searches use them, with two caches the store's data version keeps honest:
 * the objects a selection allows (the candidates of the in-memory indexes: the same filters come
 * back query after query) and each object's facet values (aggregations over large match sets).
 * Both are dropped whenever the data version moves, so they never answer from stale data.
 */
const AGG_FIELDS = ['object_type', 'file_extension', 'tags', 'repos', 'folders'] as const;
const BUCKETS_PER_FIELD = 20;
const ALLOWED_SETS = 64;

type AggField = keyof Aggregations;

const selectionKey = (sel: Selection) => `${sel.scope.tenant}\u0000${sel.scope.subject}\u0000${JSON.stringify(sel.filters)}`;

export function searchIndex(queries: IndexQueries, version: () => string) {
  let cachedAt = '';
  const allowedCache = new Map<string, Set<number>>();
  const facets = new Map<number, [AggField, string][]>();
  /** What `facets` holds (memory.ts): each object's entry and list, each value's pair and string. */
  let facetBytes = 0;
  const fresh = () => {
    const now = version();
    if (now === cachedAt) return;
    allowedCache.clear();
    facets.clear();
    facetBytes = 0;
    cachedAt = now;
  };

  return {
    ...queries,
    /** An estimate of what the two caches hold (memory.ts): the allowed sets' entries and the facet values. */
    memoryBytes(): number {
      let bytes = facetBytes;
      for (const [key, set] of allowedCache) bytes += BYTES.mapEntry + stringBytes(key) + set.size * BYTES.setEntry;
      return bytes;
    },
    /** Every object the selection lets through, cached until the data changes (least recently used go first). */
    async allowed(sel: Selection): Promise<Set<number>> {
      fresh();
      const key = selectionKey(sel);
      let set = allowedCache.get(key);
      if (set) {
        allowedCache.delete(key);
      } else {
        const at = cachedAt;
        set = await queries.allowed(sel);
        // Kept only when nothing changed while it was read (another call may have dropped the cache meanwhile).
        if (version() !== at || cachedAt !== at) return set;
        if (allowedCache.size >= ALLOWED_SETS) allowedCache.delete(allowedCache.keys().next().value!);
      }
      allowedCache.set(key, set);
      return set;
    },
    /** Term buckets (Elasticsearch style) over the whole match set, most frequent first. */
    async aggregations(seqs: readonly number[]): Promise<Aggregations> {
      fresh();
      const at = cachedAt;
      let valuesOf = (seq: number) => facets.get(seq)!;
      const missing = seqs.filter((seq) => !facets.has(seq));
      if (missing.length) {
        // Every seq's values, taken before the read: another call may drop the cache meanwhile.
        const read = new Map<number, [AggField, string][]>(seqs.map((seq) => [seq, facets.get(seq) ?? []]));
        for (const r of await queries.facets(missing, AGG_FIELDS)) read.get(r.seq)!.push([r.field as AggField, r.value]);
        if (version() === at && cachedAt === at) {
          for (const seq of missing) {
            const values = read.get(seq)!;
            facets.set(seq, values);
            facetBytes += BYTES.mapEntry + BYTES.array + values.length * BYTES.slot;
            for (const [, value] of values) facetBytes += BYTES.array + 2 * BYTES.slot + stringBytes(value);
          }
        }
        valuesOf = (seq) => read.get(seq)!;
      }
      const counts = new Map<string, { field: AggField; key: string; n: number }>();
      for (const seq of seqs) {
        for (const [field, key] of valuesOf(seq)) {
          const id = `${field}\u0000${key}`;
          const c = counts.get(id);
          if (c) c.n++;
          else counts.set(id, { field, key, n: 1 });
        }
      }
      const out = Object.fromEntries(AGG_FIELDS.map((f) => [f, [] as Bucket[]])) as Aggregations;
      const sorted = [...counts.values()].sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const c of sorted) if (out[c.field].length < BUCKETS_PER_FIELD) out[c.field].push({ key: c.key, doc_count: c.n });
      return out;
    },
  };
}

export type SearchIndex = ReturnType<typeof searchIndex>;
