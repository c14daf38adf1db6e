import { filterConditions, type Condition } from '../filters';
import type { Selection } from '../ports';

/**
 * A selection as the WHERE clause over `search_objects o` that every search and listing joins
 * (the port of ../sqlite/where.ts): the scope's tenant, live objects only, private objects only for
 * their creator, then the filters' conditions, each an index lookup (`search_terms`) or a column
 * test. Its parameters are $1..$n; a query numbers its own after them (`next`).
 */
export interface Where {
  sql: string;
  params: unknown[];
  /** The number of the first parameter after the clause's. */
  next: number;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const COLUMN = { createdAt: 'o.created_at', updatedAt: 'o.updated_at' } as const;

function add(c: Condition, conds: string[], params: unknown[]): void {
  const p = (v: unknown) => `$${params.push(v)}`;
  switch (c.on) {
    case 'objectIds':
      conds.push(`o.id = ANY(${p(c.values)}::text[])`);
      return;
    case 'term':
      conds.push(
        `EXISTS (SELECT 1 FROM search_terms t WHERE t.object_seq = o.seq AND t.field = ${p(c.field)} AND t.value = ANY(${p(c.values)}::text[]))`,
      );
      return;
    case 'titleContains':
      conds.push(`o.title ILIKE ${p(`%${likeEscape(c.value)}%`)} ESCAPE '\\'`);
      return;
    case 'size':
      conds.push(`o.size = ${p(c.value)}`);
      return;
    case 'extUserIdRef':
      conds.push(`o.ext_user_id_ref = ${p(c.value)}`);
      return;
    case 'createdAt':
    case 'updatedAt':
      if (c.from !== undefined) conds.push(`${COLUMN[c.on]} >= ${p(new Date(c.from))}`);
      if (c.to !== undefined) conds.push(`${COLUMN[c.on]} <= ${p(new Date(c.to))}`);
      return;
    case 'nothing':
      conds.push('false');
  }
}

// One request runs several queries over one selection: compiled once.
const compiled = new WeakMap<Selection, Where>();

export function whereOf(sel: Selection): Where {
  let where = compiled.get(sel);
  if (!where) {
    const conds = ['o.tenant = $1', 'o.deleted_at IS NULL', '(NOT o.is_private OR o.created_by = $2)'];
    const params: unknown[] = [sel.scope.tenant, sel.scope.subject];
    for (const c of filterConditions(sel.filters)) add(c, conds, params);
    compiled.set(sel, (where = { sql: conds.join(' AND '), params, next: params.length + 1 }));
  }
  return where;
}
