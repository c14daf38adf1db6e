import DataLoader from 'dataloader';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { z } from 'zod';
import { NewObjectBody, pageNo, pageSize, queryString, score, V2Filters } from '../../core/search/inputs';
import { READ_ROLE, WRITE_ROLE } from '../../core/search/search-service';
import type { SearchService } from '../../core/search/service';
import type { Aggregations, SearchMode, StoredObject } from '../../core/search/types';
import { filtersFrom, objectFrom } from '../../rest/search/wire';
import { parseArgs } from '../shared/args';
import { callOf, requireCaller, type GraphContext } from '../../edge/graphql/context';

const READ = { audience: 'search', roles: [READ_ROLE] };
const WRITE = { audience: 'search', roles: [WRITE_ROLE] };

/** Wire names of the shared input schemas → GraphQL argument names, to locate validation issues. */
const NAMES: Record<string, string> = {
  query_string: 'query', page_no: 'pageNo', page_size: 'pageSize', min_relevant_score: 'minScore', object_ids: 'objectIds',
  object_type: 'objectTypes', file_extension: 'fileExtensions', file_name: 'fileNames', ext_user_id_ref: 'extUserIdRef',
  system_metadata: 'systemMetadata', custom_metadata: 'customMetadata', media_metadata: 'mediaMetadata',
  source_system_metadata: 'sourceSystemMetadata',
};

type Ctx = GraphContext & { documents?: DataLoader<string, StoredObject | null> };

/** One loader per request: every Document reference of one operation is fetched in one query. */
const documents = (search: SearchService, ctx: Ctx) =>
  (ctx.documents ??= new DataLoader((ids: readonly string[]) => search.getObjects({ ids }, callOf(ctx))));

const doc = (o: StoredObject) => ({ ...o, id: o.id });
const buckets = (a: Aggregations) => Object.fromEntries(Object.entries(a).map(([k, v]) => [
  k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()), v.map((b) => ({ key: b.key, docCount: b.doc_count })),
]));

interface SearchArgs {
  query: string; mode: 'SEMANTIC' | 'FULLTEXT' | 'BASIC' | 'HYBRID'; filter?: Record<string, unknown> | null; pageNo: number; pageSize: number;
  minScore?: number | null; sortBy?: 'TITLE' | 'UPDATED_AT' | null; order: 'ASC' | 'DESC'; reRanked: boolean; exact?: boolean | null;
  anywhere?: boolean | null; highlight?: boolean | null;
}

const wireFilter = (f: Record<string, unknown> | null | undefined) => f && ({
  object_ids: f.objectIds, tags: f.tags, folders: f.folders, repos: f.repos, object_type: f.objectTypes, file_extension: f.fileExtensions,
  file_name: f.fileNames, title: f.title, size: f.size, ext_user_id_ref: f.extUserIdRef, kvp: f.kvp, taxonomy: f.taxonomy,
  system_metadata: f.systemMetadata, custom_metadata: f.customMetadata, media_metadata: f.mediaMetadata, source_system_metadata: f.sourceSystemMetadata,
});

const range = (r: unknown): [Date | null, Date | null] | undefined => {
  const x = r as { from?: Date | null; to?: Date | null } | null | undefined;
  return x ? [x.from ?? null, x.to ?? null] : undefined;
};

export const searchResolvers = (search: SearchService) => ({
  DateTime: DateTimeResolver,
  JSONObject: JSONObjectResolver,
  JSON: JSONResolver,
  Query: {
    document: (_: unknown, args: { id: string }, ctx: Ctx) => {
      requireCaller(ctx, READ);
      return documents(search, ctx).load(args.id);
    },
    search: async (_: unknown, a: SearchArgs, ctx: Ctx) => {
      requireCaller(ctx, READ);
      const mode = a.mode.toLowerCase() as SearchMode;
      const q = parseArgs(z.object({
        query_string: queryString(mode === 'basic' ? 0 : 1), page_no: pageNo(), page_size: pageSize(20, mode === 'hybrid' ? 20 : 1),
        min_relevant_score: score(0).optional(),
      }), { query_string: a.query, page_no: a.pageNo, page_size: a.pageSize, min_relevant_score: a.minScore }, NAMES);
      const body = parseArgs(V2Filters, wireFilter(a.filter) ?? {}, NAMES, ['filter']);
      const page = await search.search({
        mode, query: q.query_string, offset: (q.page_no - 1) * q.page_size, limit: q.page_size, minScore: q.min_relevant_score,
        filters: { ...filtersFrom(body), createdBetween: range(a.filter?.createdBetween), modifiedBetween: range(a.filter?.modifiedBetween) },
        sort: a.sortBy ? { by: a.sortBy === 'TITLE' ? 'title' : 'updated_at', order: a.order === 'DESC' ? 'desc' : 'asc' } : undefined,
        rerank: a.reRanked, exact: a.exact ?? undefined, anywhere: a.anywhere ?? undefined, highlight: a.highlight ?? undefined,
      }, callOf(ctx));
      return {
        totalCount: page.total, pageNo: q.page_no, pageSize: q.page_size, aggregations: buckets(page.aggregations),
        hits: page.hits.map((h) => ({ document: doc(h.object), score: h.score, snippet: h.snippet, highlights: h.highlights ?? null })),
      };
    },
    passages: async (_: unknown, a: { query: string; objectIds?: string[] | null; customMetadata?: Record<string, unknown> | null; pageNo: number; pageSize: number }, ctx: Ctx) => {
      requireCaller(ctx, READ);
      const q = parseArgs(z.object({ query_string: queryString(), page_no: pageNo(), page_size: pageSize(5) }),
        { query_string: a.query, page_no: a.pageNo, page_size: a.pageSize }, NAMES);
      const body = parseArgs(V2Filters, { object_ids: a.objectIds, custom_metadata: a.customMetadata }, NAMES);
      const page = await search.passages({
        query: q.query_string, filters: { objectIds: body.object_ids, customMetadata: body.custom_metadata },
        offset: (q.page_no - 1) * q.page_size, limit: q.page_size, rerank: true,
      }, callOf(ctx));
      return {
        totalCount: page.total,
        passages: page.passages.map((p) => ({ document: { id: p.objectId }, chunkId: String(p.chunkId), chunkIndex: p.chunkIndex, text: p.text, score: p.score })),
      };
    },
  },
  Mutation: {
    addDocument: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: Ctx) => {
      requireCaller(ctx, WRITE);
      const body = parseArgs(NewObjectBody, {
        content: input.content, title: input.title, file_name: input.fileName, object_type: input.objectType, file_extension: input.fileExtension,
        tags: input.tags, folders: input.folders, repos: input.repos, kvp: input.kvp, taxonomy: input.taxonomy, ext_user_id_ref: input.extUserIdRef,
        custom_metadata: input.customMetadata, media_metadata: input.mediaMetadata, source_system_metadata: input.sourceSystemMetadata,
        system_metadata: typeof input.isPrivate === 'boolean' ? { is_private: input.isPrivate } : undefined,
      }, { ...NAMES, file_name: 'fileName', object_type: 'objectType', file_extension: 'fileExtension' }, ['input']);
      return doc(await search.createObject({ ...objectFrom(body), content: body.content }, callOf(ctx)));
    },
    deleteDocument: async (_: unknown, args: { id: string }, ctx: Ctx) => {
      requireCaller(ctx, WRITE);
      await search.deleteObject({ id: args.id }, callOf(ctx));
      return true;
    },
  },
  Document: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => {
      requireCaller(ctx, READ);
      return documents(search, ctx).load(ref.id);
    },
  },
  Passage: {
    document: (p: { document: { id: string } }, _: unknown, ctx: Ctx) => documents(search, ctx).load(p.document.id),
  },
});
