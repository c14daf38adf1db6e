import { z } from 'zod';
import { NewObjectBody } from '../../core/search/inputs';
import type { OperationDocs, ServiceDocs } from '../shared/routes';

/**
 * The search service in OpenAPI: where its bearer token comes from, and what Try it out starts
 * from (a query, no filter: filters narrow an answer, and made-up ones would empty it).
 */
export const searchServiceDocs: ServiceDocs = {
  description:
    'Every search needs a bearer access token with the role `search:read` (adding, changing and deleting objects: ' +
    "`search:write`): get one at the token service (`POST /auth/api/v1/oauth/connect/token` with a client's id and secret; " +
    'the demo client has both roles) and **Authorize** with it. v2 takes the query in the query string and filters in a JSON body.',
};

/** A v2 search: an example query and an empty filter (or `body`). */
export const v2Docs = (query: string, body: unknown = {}): OperationDocs => ({
  params: { query_string: { example: query } },
  body: { example: body },
});

const Created = z.object({ status: z.literal('success'), message: z.string(), object_id: z.string() });
const Found = z.object({
  status: z.literal('success'),
  message: z.string(),
  result: z.record(z.string(), z.unknown()).describe('The object and its metadata'),
});

/** A page of an object's passages (`GET /v2/objects/{object_id}/passages`). */
export const PassagesPage = z.object({
  status: z.literal('success'),
  message: z.string(),
  result_count: z.int().describe("The object's passages over every page"),
  result: z.array(
    z.object({
      chunk_id: z.int(),
      chunk_index: z.int().describe('0-based position in the object'),
      text: z.string(),
    }),
  ),
  next_cursor: z.string().nullable().describe("The next page's `cursor`; null on the last page"),
});

export const objectDocs: Record<'create' | 'one', OperationDocs> = {
  create: {
    body: {
      content: {
        'application/json': NewObjectBody,
        'multipart/form-data': z.object({
          file: z.file().describe('txt, md, html, pdf or docx'),
          metadata: z.string().optional().describe('The JSON fields of the JSON body, except `content`'),
        }),
      },
      example: { title: 'Glaciers', content: 'Glaciers retreat as the climate warms; sea levels rise.', tags: ['science'] },
    },
    responses: { 201: { description: 'Object created', schema: Created } },
  },
  one: { responses: { 200: { description: 'The object', schema: Found } } },
};
