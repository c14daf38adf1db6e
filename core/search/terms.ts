import type { Json, ObjectFields } from './types';

/**
 * Filterable values as (field, value) pairs, the rows of the `terms` table. Lists give one pair per
 * item; JSON objects (kvp, taxonomy, the metadata objects) give one pair per leaf, keyed by its
 * dotted path (`kvp.region`, `custom_metadata.tags`); an array's items share their parent's path.
 * Values are text: numbers as written, booleans `true`/`false`. A filter is flattened the same way,
 * so matching is equality of pairs, an index lookup.
 */
export type Term = [field: string, value: string];

/** Past these, values are kept on the object but not filterable (they would bloat the index). */
export const MAX_TERM_LENGTH = 512;
export const MAX_TERMS_PER_OBJECT = 2000;

export const METADATA_FIELDS = [
  'kvp',
  'taxonomy',
  'system_metadata',
  'custom_metadata',
  'media_metadata',
  'source_system_metadata',
] as const;

const text = (v: Json): string | undefined => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
};

/** Leaves of a JSON value under `path`. */
export function flatten(value: Json | undefined, path: string, out: Term[] = []): Term[] {
  if (value === undefined || value === null) return out;
  if (Array.isArray(value)) {
    for (const item of value) flatten(item, path, out);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out);
  } else {
    const t = text(value);
    if (t !== undefined && t.length <= MAX_TERM_LENGTH) out.push([path, t]);
  }
  return out;
}

/** Every pair of an object, without duplicates, at most MAX_TERMS_PER_OBJECT. */
export function objectTerms(
  o: Pick<
    ObjectFields,
    | 'tags'
    | 'folders'
    | 'repos'
    | 'objectType'
    | 'fileExtension'
    | 'fileName'
    | 'kvp'
    | 'taxonomy'
    | 'systemMetadata'
    | 'customMetadata'
    | 'mediaMetadata'
    | 'sourceSystemMetadata'
  >,
): Term[] {
  const out: Term[] = [];
  const fields: [Json | undefined, string][] = [
    [o.tags, 'tags'],
    [o.folders, 'folders'],
    [o.repos, 'repos'],
    [o.objectType, 'object_type'],
    [o.fileExtension, 'file_extension'],
    [o.fileName, 'file_name'],
    [o.kvp, 'kvp'],
    [o.taxonomy, 'taxonomy'],
    [o.systemMetadata, 'system_metadata'],
    [o.customMetadata, 'custom_metadata'],
    [o.mediaMetadata, 'media_metadata'],
    [o.sourceSystemMetadata, 'source_system_metadata'],
  ];
  for (const [value, field] of fields) flatten(value, field, out);
  const seen = new Set<string>();
  return out
    .filter(([f, v]) => {
      const key = `${f}\u0000${v}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_TERMS_PER_OBJECT);
}

/** A filter object's pairs grouped by field: each field must match one of its values. */
export function filterTerms(value: Json | undefined, path: string): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const [f, v] of flatten(value, path)) byField.set(f, [...(byField.get(f) ?? []), v]);
  return byField;
}
