import { z } from 'zod';
import { FilterInput, NewObjectInput, pageNo, pageSize, queryString, score } from '../../core/search/inputs';
import type {
  Aggregations,
  DateRange,
  NewObject,
  ObjectPassagesRequest,
  PassageRequest,
  SearchMode,
  SearchRequest,
  StoredObject,
} from '../../core/search/types';
import { DEFAULT_PAGE, MAX_PAGE } from '../../core/shared/admin/paging';
import { parseArgs } from '../shared/args';
import { privacyOf } from './upload';

/** The search subgraph's arguments as GraphQL hands them over (null means absent), and their domain input. */
export interface SearchArgs {
  query: string;
  mode: 'SEMANTIC' | 'FULLTEXT' | 'BASIC' | 'HYBRID';
  filter?: (Record<string, unknown> & { createdBetween?: GraphRange; modifiedBetween?: GraphRange }) | null;
  pageNo: number;
  pageSize: number;
  minScore?: number | null;
  sortBy?: 'TITLE' | 'UPDATED_AT' | null;
  order: 'ASC' | 'DESC';
  reRanked: boolean;
  exact?: boolean | null;
  anywhere?: boolean | null;
  highlight?: boolean | null;
}

export interface PassagesArgs {
  query: string;
  objectIds?: string[] | null;
  customMetadata?: Record<string, unknown> | null;
  pageNo: number;
  pageSize: number;
}

type GraphRange = { from?: Date | null; to?: Date | null } | null;

const range = (r: GraphRange | undefined): DateRange | undefined => (r ? [r.from ?? null, r.to ?? null] : undefined);

/** As REST v2: an empty query lists (BASIC only), and HYBRID pages hold at least 20. */
const paging = (mode: SearchMode) =>
  z.object({
    query: queryString(mode === 'basic' ? 0 : 1),
    pageNo: pageNo(),
    pageSize: pageSize(20, mode === 'hybrid' ? 20 : 1),
    minScore: score(0).optional(),
  });

export function searchArgs(a: SearchArgs): SearchRequest {
  const mode = a.mode.toLowerCase() as SearchMode;
  const p = parseArgs(paging(mode), { query: a.query, pageNo: a.pageNo, pageSize: a.pageSize, minScore: a.minScore });
  const { createdBetween, modifiedBetween, ...rest } = a.filter ?? {};
  const filters = parseArgs(FilterInput, rest, {}, ['filter']);
  return {
    mode,
    query: p.query,
    offset: (p.pageNo - 1) * p.pageSize,
    limit: p.pageSize,
    minScore: p.minScore,
    filters: { ...filters, createdBetween: range(createdBetween), modifiedBetween: range(modifiedBetween) },
    sort: a.sortBy ? { by: a.sortBy === 'TITLE' ? 'title' : 'updated_at', order: a.order === 'DESC' ? 'desc' : 'asc' } : undefined,
    rerank: a.reRanked,
    exact: a.exact ?? undefined,
    anywhere: a.anywhere ?? undefined,
    highlight: a.highlight ?? undefined,
  };
}

const PassagePaging = z.object({ query: queryString(), pageNo: pageNo(), pageSize: pageSize(5) });

export function passagesArgs(a: PassagesArgs): PassageRequest {
  const p = parseArgs(PassagePaging, { query: a.query, pageNo: a.pageNo, pageSize: a.pageSize });
  const filters = parseArgs(FilterInput, { objectIds: a.objectIds, customMetadata: a.customMetadata });
  return { query: p.query, filters, offset: (p.pageNo - 1) * p.pageSize, limit: p.pageSize, rerank: true };
}

/** DocumentInput: the domain's names, `isPrivate` as the system metadata REST takes it in. */
export function newObjectOf(input: Record<string, unknown>): NewObject {
  const { isPrivate, ...fields } = input;
  return parseArgs(NewObjectInput, { ...fields, systemMetadata: privacyOf(isPrivate) }, {}, ['input']);
}

/** Document.passages: `first` 1..200 (50 when absent), `after` the previous page's cursor. */
const PassagePage = z.object({ first: pageSize(DEFAULT_PAGE, 1, MAX_PAGE), after: z.string().max(512).optional() });

export function documentPassagesArgs(id: string, a: { first?: number | null; after?: string | null }): ObjectPassagesRequest {
  const p = parseArgs(PassagePage, { first: a.first, after: a.after });
  return { id, limit: p.first, after: p.after };
}

export const docView = (o: StoredObject) => ({ ...o, id: o.id });

export const bucketsView = (a: Aggregations) =>
  Object.fromEntries(
    Object.entries(a).map(([k, v]) => [
      k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
      v.map((b) => ({ key: b.key, docCount: b.doc_count })),
    ]),
  );
