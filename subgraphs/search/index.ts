import DataLoader from 'dataloader';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import type { Caller } from '../../core/shared/auth/caller';
import type { SearchService } from '../../core/search/service';
import type { StoredObject } from '../../core/search/types';
import type { GraphContext } from '../../edge/graphql/context';
import type { CallOf } from '../../edge/graphql/calls';
import { authorize } from '../../core/shared/auth/caller';
import { WRITE_ROLE } from '../../core/search/roles';
import {
  bucketsView,
  docView,
  documentPassagesArgs,
  newObjectOf,
  passagesArgs,
  searchArgs,
  type PassagesArgs,
  type SearchArgs,
} from './args';
import { uploadOf } from './upload';

/**
 * The search service's subgraph: its GraphQL arguments validated and mapped straight to the
 * domain's input (./args), the caller established from the request's bearer token (`callOf`), and
 * the core checking the caller's roles and tenant as it does for REST.
 */
type Ctx = GraphContext & { documents?: DataLoader<string, StoredObject | null> };

export interface SearchSubgraphOptions {
  /** Largest file `uploadDocument` takes, decoded (SEARCH_MAX_UPLOAD_BYTES, as the REST upload). */
  maxUploadBytes: number;
}

export const searchResolvers = (search: SearchService, callOf: CallOf<Caller>, opts: SearchSubgraphOptions) => {
  /** One loader per request: every Document reference of one operation is fetched in one query. */
  const documents = (ctx: Ctx) =>
    (ctx.documents ??= new DataLoader(async (ids: readonly string[]) => search.getObjects({ ids }, await callOf(ctx))));

  return {
    DateTime: DateTimeResolver,
    JSONObject: JSONObjectResolver,
    JSON: JSONResolver,
    Query: {
      document: (_: unknown, args: { id: string }, ctx: Ctx) => documents(ctx).load(args.id),
      search: async (_: unknown, a: SearchArgs, ctx: Ctx) => {
        const input = searchArgs(a);
        const page = await search.search(input, await callOf(ctx));
        return {
          totalCount: page.total,
          pageNo: input.offset / input.limit + 1,
          pageSize: input.limit,
          aggregations: bucketsView(page.aggregations),
          hits: page.hits.map((h) => ({
            document: docView(h.object),
            score: h.score,
            snippet: h.snippet,
            highlights: h.highlights ?? null,
          })),
        };
      },
      passages: async (_: unknown, a: PassagesArgs, ctx: Ctx) => {
        const page = await search.passages(passagesArgs(a), await callOf(ctx));
        return {
          totalCount: page.total,
          passages: page.passages.map((p) => ({
            document: { id: p.objectId },
            chunkId: String(p.chunkId),
            chunkIndex: p.chunkIndex,
            text: p.text,
            score: p.score,
          })),
        };
      },
    },
    Mutation: {
      addDocument: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: Ctx) =>
        docView(await search.createObject(newObjectOf(input), await callOf(ctx))),
      uploadDocument: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: Ctx) => {
        const call = await callOf(ctx);
        // As the REST route, before its body is read: a caller who may not write is refused before any decoding.
        authorize(call.caller, { roles: [WRITE_ROLE] });
        return docView(await search.uploadObject(await uploadOf(input, opts.maxUploadBytes), call));
      },
      deleteDocument: async (_: unknown, args: { id: string }, ctx: Ctx) => {
        await search.deleteObject({ id: args.id }, await callOf(ctx));
        return true;
      },
    },
    Document: {
      __resolveReference: (ref: { id: string }, ctx: Ctx) => documents(ctx).load(ref.id),
      // The document is one the caller sees (else it is null before this runs); its passages are read as the caller too.
      passages: async (doc: StoredObject, a: { first?: number | null; after?: string | null }, ctx: Ctx) => {
        const page = await search.objectPassages(documentPassagesArgs(doc.id, a), await callOf(ctx));
        return {
          items: page.items.map((p) => ({ chunkId: String(p.chunkId), chunkIndex: p.chunkIndex, text: p.text })),
          total: page.total,
          nextCursor: page.nextCursor,
        };
      },
    },
    Passage: {
      document: (p: { document: { id: string } }, _: unknown, ctx: Ctx) => documents(ctx).load(p.document.id),
    },
  };
};
