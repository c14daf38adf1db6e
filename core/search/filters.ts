import { splitCustom } from './custom-metadata';
import { filterTerms, METADATA_FIELDS } from './terms';
import type { DateRange, Filters } from './types';

/**
 * The WHERE clause over `objects o` that every search and listing uses: the caller's tenant, live
 * objects only, private objects only for their creator, then the request's filters. It is part of
 * the index query itself (joined with the full-text match, or choosing the vectors searched), so
 * filtering happens before ranking and paging, never after.
 */
export interface Scope {
  tenant: string;
  /** The caller's subject: sees its own private objects. */
  subject: string;
}

export interface Where {
  sql: string;
  params: unknown[];
}

const LIST_FIELDS = [
  ['tags', 'tags'], ['folders', 'folders'], ['repos', 'repos'], ['objectTypes', 'object_type'],
  ['fileExtensions', 'file_extension'], ['fileNames', 'file_name'],
] as const;

const METADATA_KEYS = {
  kvp: 'kvp', taxonomy: 'taxonomy', system_metadata: 'systemMetadata', custom_metadata: 'customMetadata',
  media_metadata: 'mediaMetadata', source_system_metadata: 'sourceSystemMetadata',
} as const satisfies Record<(typeof METADATA_FIELDS)[number], keyof Filters>;

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function whereClause(scope: Scope, f: Filters): Where {
  const conds = ['o.tenant = ?', 'o.deleted_at IS NULL', '(o.is_private = 0 OR o.created_by = ?)'];
  const params: unknown[] = [scope.tenant, scope.subject];
  const term = (field: string, values: readonly string[]) => {
    conds.push(`EXISTS (SELECT 1 FROM terms t WHERE t.object_seq = o.seq AND t.field = ? AND t.value IN (${placeholders(values.length)}))`);
    params.push(field, ...values);
  };
  if (f.objectIds?.length) {
    conds.push(`o.id IN (${placeholders(f.objectIds.length)})`);
    params.push(...f.objectIds);
  }
  for (const [key, field] of LIST_FIELDS) {
    const values = f[key];
    if (values?.length) term(field, values);
  }
  for (const [field, key] of Object.entries(METADATA_KEYS)) {
    if (key === 'customMetadata') continue;
    for (const [path, values] of filterTerms(f[key] as never, field)) term(path, values);
  }
  // custom_metadata's tags, kvp and taxonomy are the object's own: each is one more condition on them.
  const custom = splitCustom(f.customMetadata);
  if (custom.own.tags?.length) term('tags', custom.own.tags);
  for (const [path, values] of [...filterTerms(custom.own.kvp, 'kvp'), ...filterTerms(custom.own.taxonomy, 'taxonomy'),
    ...filterTerms(custom.rest, 'custom_metadata')]) term(path, values);
  if (f.title) {
    conds.push(`o.title LIKE ? ESCAPE '\\'`);
    params.push(`%${likeEscape(f.title)}%`);
  }
  if (f.size !== undefined) {
    conds.push('o.size = ?');
    params.push(f.size);
  }
  if (f.extUserIdRef) {
    conds.push('o.ext_user_id_ref = ?');
    params.push(f.extUserIdRef);
  }
  const range = (column: string, r: DateRange | undefined) => {
    if (!r) return;
    if (r[0]) {
      conds.push(`${column} >= ?`);
      params.push(r[0].getTime());
    }
    if (r[1]) {
      conds.push(`${column} <= ?`);
      params.push(r[1].getTime());
    }
  };
  range('o.created_at', f.createdBetween);
  range('o.updated_at', f.modifiedBetween);
  // Deleted objects never appear in results, so a range over deletion times matches none.
  if (f.deletedBetween && (f.deletedBetween[0] || f.deletedBetween[1])) conds.push('0');
  return { sql: conds.join(' AND '), params };
}
