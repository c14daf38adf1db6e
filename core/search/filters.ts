import { splitCustom } from './custom-metadata';
import { filterTerms, METADATA_FIELDS } from './terms';
import type { DateRange, Filters } from './types';

// Scope lived here before the store's ports: its importers keep working.
export type { Scope } from './types';

/**
 * What a request's filters mean, as conditions every one of which an object must meet (besides
 * its scope: tenant, live, private only to its creator). A store turns them into its own query, so
 * filtering happens inside the index query, before ranking and paging, never after. The rules live
 * here, not in each store: a list filter is one of its values among the object's terms (terms.ts);
 * a metadata filter is each of its leaves; custom_metadata's tags, kvp and taxonomy are the
 * object's own fields; deleted objects never appear, so a range over deletion times matches none.
 */
export type Condition =
  | { on: 'objectIds'; values: string[] }
  /** One of `values` among the object's terms of `field`. */
  | { on: 'term'; field: string; values: string[] }
  /** The title contains `value`, case-insensitively (ASCII). */
  | { on: 'titleContains'; value: string }
  | { on: 'size'; value: number }
  | { on: 'extUserIdRef'; value: string }
  /** Epoch ms, both ends included; an absent end is open. */
  | { on: 'createdAt' | 'updatedAt'; from?: number; to?: number }
  | { on: 'nothing' };

const LIST_FIELDS = [
  ['tags', 'tags'],
  ['folders', 'folders'],
  ['repos', 'repos'],
  ['objectTypes', 'object_type'],
  ['fileExtensions', 'file_extension'],
  ['fileNames', 'file_name'],
] as const;

const METADATA_KEYS = {
  kvp: 'kvp',
  taxonomy: 'taxonomy',
  system_metadata: 'systemMetadata',
  custom_metadata: 'customMetadata',
  media_metadata: 'mediaMetadata',
  source_system_metadata: 'sourceSystemMetadata',
} as const satisfies Record<(typeof METADATA_FIELDS)[number], keyof Filters>;

const between = (on: 'createdAt' | 'updatedAt', r: DateRange | undefined): Condition[] =>
  r && (r[0] || r[1]) ? [{ on, ...(r[0] ? { from: r[0].getTime() } : {}), ...(r[1] ? { to: r[1].getTime() } : {}) }] : [];

export function filterConditions(f: Filters): Condition[] {
  const out: Condition[] = [];
  const term = (field: string, values: string[]) => out.push({ on: 'term', field, values });
  if (f.objectIds?.length) out.push({ on: 'objectIds', values: f.objectIds });
  for (const [key, field] of LIST_FIELDS) {
    const values = f[key];
    if (values?.length) term(field, values);
  }
  for (const [field, key] of Object.entries(METADATA_KEYS)) {
    if (key === 'customMetadata') continue;
    for (const [path, values] of filterTerms(f[key], field)) term(path, values);
  }
  const custom = splitCustom(f.customMetadata);
  if (custom.own.tags?.length) term('tags', custom.own.tags);
  for (const [path, values] of [
    ...filterTerms(custom.own.kvp, 'kvp'),
    ...filterTerms(custom.own.taxonomy, 'taxonomy'),
    ...filterTerms(custom.rest, 'custom_metadata'),
  ])
    term(path, values);
  if (f.title) out.push({ on: 'titleContains', value: f.title });
  if (f.size !== undefined) out.push({ on: 'size', value: f.size });
  if (f.extUserIdRef) out.push({ on: 'extUserIdRef', value: f.extUserIdRef });
  out.push(...between('createdAt', f.createdBetween), ...between('updatedAt', f.modifiedBetween));
  if (f.deletedBetween && (f.deletedBetween[0] || f.deletedBetween[1])) out.push({ on: 'nothing' });
  return out;
}
