import { z } from 'zod';
import { ChunkBody, order, pageNo, pageSize, queryString, score, sortingBy, V2BasicBody, V2Filters } from '../../core/search/inputs';
import type { SearchService } from '../../core/search/service';
import type { SearchRequest } from '../../core/search/types';
import { param } from '../../core/shared/params';
import type { Route } from '../shared/routes';
import { envelope, filtersFrom, passageView } from './wire';
import { READ, failures, Envelope, define } from './common';
import { v2Docs } from './docs';

/** v2: query parameters for the query, paging and sorting; the filters in a JSON body. */
const sort = (q: { sorting_by: string; order: string }): SearchRequest['sort'] =>
  q.sorting_by === 'None' ? undefined : { by: q.sorting_by as 'title' | 'updated_at', order: q.order === 'desc' ? 'desc' : 'asc' };

const Scored = z.object({
  query_string: queryString(),
  sorting_by: sortingBy(),
  order: order(),
  page_no: pageNo(),
  page_size: pageSize(20),
  min_relevant_score: score(0.5),
});
const Basic = z.object({
  query_string: queryString(0),
  sorting_by: sortingBy(),
  order: order(),
  page_no: pageNo(),
  page_size: pageSize(20),
});
const Hybrid = z.object({
  query_string: queryString(),
  re_ranked: param.bool().default(true),
  page_no: pageNo(),
  page_size: pageSize(20, 20),
});
const Chunks = z.object({ query_string: queryString(), page_size: pageSize(5), page_no: pageNo() });

const paging = (q: { page_no: number; page_size: number }) => ({ offset: (q.page_no - 1) * q.page_size, limit: q.page_size });

export function searchV2Routes(search: SearchService): Route[] {
  const scored = (mode: 'semantic' | 'fulltext', summary: string) =>
    define({
      method: 'post',
      path: `/v2/${mode}`,
      summary,
      tags: ['v2'],
      auth: READ,
      input: { query: Scored, body: V2Filters },
      docs: v2Docs('glaciers climate'),
      responses: { 200: { description: 'Documents found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) =>
        envelope(
          await search.search(
            {
              mode,
              query: q.query_string,
              filters: filtersFrom(q.body),
              ...paging(q),
              minScore: q.min_relevant_score,
              sort: sort(q),
            },
            ctx,
          ),
        ),
    });
  return [
    scored('semantic', 'Semantic search (vectors)'),
    scored('fulltext', 'Full-text search (BM25)'),
    define({
      method: 'post',
      path: '/v2/basic_search',
      summary: 'Basic search over titles, file names and tags (and content with is_anywhere)',
      tags: ['v2'],
      auth: READ,
      input: { query: Basic, body: V2BasicBody },
      docs: v2Docs('glac', { with_highlight: true }),
      responses: { 200: { description: 'Documents found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) =>
        envelope(
          await search.search(
            {
              mode: 'basic',
              query: q.query_string,
              filters: filtersFrom(q.body),
              ...paging(q),
              sort: sort(q),
              exact: q.body.with_exact_search,
              highlight: q.body.with_highlight,
              anywhere: q.body.is_anywhere,
            },
            ctx,
          ),
        ),
    }),
    define({
      method: 'post',
      path: '/v2/search',
      summary: 'Hybrid search: full text and vectors fused (RRF), re-ranked',
      tags: ['v2'],
      auth: READ,
      input: { query: Hybrid, body: V2Filters },
      docs: v2Docs('why do glaciers retreat'),
      responses: { 200: { description: 'Documents found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) =>
        envelope(
          await search.search(
            {
              mode: 'hybrid',
              query: q.query_string,
              filters: filtersFrom(q.body),
              ...paging(q),
              rerank: q.re_ranked,
            },
            ctx,
          ),
        ),
    }),
    define({
      method: 'post',
      path: '/v2/chunk/search',
      summary: 'Passages best matching a query, within objects, metadata or file names',
      tags: ['v2'],
      description:
        'Hybrid passages (full text and vectors), re-ranked. The body narrows them: `object_ids`, `custom_metadata`, and ' +
        '`file_names` (objects whose `file_name` is one of them; the chat proxy reads uploaded files with it).',
      auth: READ,
      input: { query: Chunks, body: ChunkBody },
      docs: v2Docs('sea levels'),
      responses: { 200: { description: 'Passages found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) => {
        const filters = { objectIds: q.body.object_ids, customMetadata: q.body.custom_metadata, fileNames: q.body.file_names };
        const page = await search.passages({ query: q.query_string, filters, ...paging(q), rerank: true }, ctx);
        const empty = envelope({
          total: page.total,
          hits: [],
          aggregations: { object_type: [], file_extension: [], tags: [], repos: [], folders: [] },
        });
        return { ...empty, result: page.passages.map(passageView), error: null };
      },
    }),
  ];
}
