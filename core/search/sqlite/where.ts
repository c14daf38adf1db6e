import { filterConditions, type Condition } from '../filters';
import type { Selection } from '../ports';

/**
 * A selection as the WHERE clause over `objects o` that every search and listing joins: the
 * scope's tenant, live objects only, private objects only for their creator, then the filters'
 * conditions, each an index lookup (`terms`) or a column test.
 */
export interface Where {
  sql: string;
  params: unknown[];
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const COLUMN = { createdAt: 'o.created_at', updatedAt: 'o.updated_at' } as const;

function add(c: Condition, conds: string[], params: unknown[]): void {
  switch (c.on) {
    case 'objectIds':
      conds.push(`o.id IN (${placeholders(c.values.length)})`);
      params.push(...c.values);
      return;
    case 'term':
      conds.push(
        `EXISTS (SELECT 1 FROM terms t WHERE t.object_seq = o.seq AND t.field = ? AND t.value IN (${placeholders(c.values.length)}))`,
      );
      params.push(c.field, ...c.values);
      return;
    case 'titleContains':
      conds.push(`o.title LIKE ? ESCAPE '\\'`);
      params.push(`%${likeEscape(c.value)}%`);
      return;
    case 'size':
      conds.push('o.size = ?');
      params.push(c.value);
      return;
    case 'extUserIdRef':
      conds.push('o.ext_user_id_ref = ?');
      params.push(c.value);
      return;
    case 'createdAt':
    case 'updatedAt':
      if (c.from !== undefined) {
        conds.push(`${COLUMN[c.on]} >= ?`);
        params.push(c.from);
      }
      if (c.to !== undefined) {
        conds.push(`${COLUMN[c.on]} <= ?`);
        params.push(c.to);
      }
      return;
    case 'nothing':
      conds.push('0');
  }
}

// One request runs several queries over one selection: compiled once.
const compiled = new WeakMap<Selection, Where>();

export function whereOf(sel: Selection): Where {
  let where = compiled.get(sel);
  if (!where) {
    const conds = ['o.tenant = ?', 'o.deleted_at IS NULL', '(o.is_private = 0 OR o.created_by = ?)'];
    const params: unknown[] = [sel.scope.tenant, sel.scope.subject];
    for (const c of filterConditions(sel.filters)) add(c, conds, params);
    compiled.set(sel, (where = { sql: conds.join(' AND '), params }));
  }
  return where;
}
