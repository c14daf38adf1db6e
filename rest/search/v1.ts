import type { Request } from 'express';
import type { z } from 'zod';
import { V1Basic, V1Lite, V1Passages, V1Search } from '../../core/search/inputs-v1';
import type { SearchService } from '../../core/search/service';
import type { DateRange, PassagePage } from '../../core/search/types';
import { isPlainObject } from '../../core/shared/validation';
import type { Route } from '../shared/routes';
import { DataEnvelope, Envelope, failures, READ, define } from './common';
import { dataString, envelope } from './wire';

/** v1: every input a URL query parameter (basic search also takes its example's JSON body). */
const range = (r: [string | null, string | null] | undefined): DateRange | undefined =>
  r && [r[0] ? new Date(r[0]) : null, r[1] ? new Date(r[1]) : null];

const dataEnvelope = (page: PassagePage) => ({
  status: 'success',
  message: page.total ? 'Documents found' : 'No documents found',
  data: dataString(page.passages),
});

/** Basic search's example body: `{"query_dictionary": {...}, "source": "..."}`. */
const queryDictionary = (req: Request) => {
  const body: unknown = req.body;
  if (!isPlainObject(body)) return {};
  return {
    ...(isPlainObject(body.query_dictionary) ? body.query_dictionary : {}),
    ...(body.source !== undefined ? { source: body.source } : {}),
  };
};

const filters = (q: Pick<z.output<typeof V1Passages>, 'tags' | 'folders' | 'repos' | 'kvp' | 'taxonomy'>) => ({
  tags: q.tags,
  folders: q.folders,
  repos: q.repos,
  kvp: q.kvp,
  taxonomy: q.taxonomy,
});

export function searchV1Routes(search: SearchService): Route[] {
  const scored = (mode: 'semantic' | 'fulltext', summary: string) =>
    define({
      method: 'post',
      path: `/v1/${mode}`,
      summary,
      tags: ['v1'],
      auth: READ,
      input: { query: V1Search },
      responses: { 200: { description: 'Documents found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) =>
        envelope(
          await search.search(
            {
              mode,
              query: q.query_string,
              filters: filters(q),
              offset: (q.start - 1) * q.size,
              limit: q.size,
              minScore: q.min_relevant_score / 100,
            },
            ctx,
          ),
        ),
    });
  return [
    scored('semantic', 'Semantic search (v1)'),
    scored('fulltext', 'Full-text search (v1)'),
    define({
      method: 'post',
      path: '/v1/basic_search',
      summary: 'Filter-based search (v1)',
      tags: ['v1'],
      auth: READ,
      description: 'Parameters as query parameters, or as the JSON body {"query_dictionary": {...}, "source": "..."}.',
      input: { merged: V1Basic, mergedDefaults: queryDictionary },
      responses: { 200: { description: 'Documents found', schema: Envelope }, ...failures },
      handle: async (q, { ctx }) =>
        envelope(
          await search.search(
            {
              mode: 'basic',
              query: q.query_string,
              offset: (q.start - 1) * q.size,
              limit: q.size,
              anywhere: true,
              filters: {
                tags: q.tags,
                folders: q.folders,
                repos: q.repos,
                kvp: q.kvp,
                createdBetween: range(q.created_between),
                modifiedBetween: range(q.modified_between),
                deletedBetween: range(q.deleted_between),
              },
            },
            ctx,
          ),
        ),
    }),
    define({
      method: 'post',
      path: '/v1/search',
      summary: 'Hybrid passage search, re-ranked; `data` is the top_k passages as one string',
      tags: ['v1'],
      auth: READ,
      input: { query: V1Passages },
      responses: { 200: { description: 'Successful Response', schema: DataEnvelope }, ...failures },
      handle: async (q, { ctx }) =>
        dataEnvelope(
          await search.passages(
            {
              query: q.query_string,
              filters: { ...filters(q), objectIds: q.object_ids },
              offset: 0,
              limit: q.top_k,
              rerank: q.re_ranked,
            },
            ctx,
          ),
        ),
    }),
    define({
      method: 'get',
      path: '/v1/search_lite',
      summary: 'k-nearest-neighbour passage search; `data` as in v1 search',
      tags: ['v1'],
      auth: READ,
      input: { query: V1Lite },
      responses: { 200: { description: 'Successful Response', schema: DataEnvelope }, ...failures },
      handle: async (q, { ctx }) =>
        dataEnvelope(
          await search.passages(
            {
              query: q.query_string,
              filters: {},
              offset: 0,
              limit: q.top_k,
              mode: 'semantic',
              rerank: q.re_ranked,
            },
            ctx,
          ),
        ),
    }),
  ];
}
