import { z } from 'zod';
import type { StoredResponses } from '../../core/models/answers/stored-responses';
import type { Route } from '../shared/routes';
import { define, lmKey } from './common';
import { InvalidParam, openAiErrorBody } from './doors';
import { deletedResponseDocs, inputItemsDocs, storedResponseDocs } from './docs-responses';

/**
 * The stored responses of the key's tenant, as the openai SDK reads them (`responses.retrieve`,
 * `responses.delete`, `responses.inputItems.list`), at each base the Responses API is served at:
 * OpenAI's (`''`) and Azure's v1 layouts. Another tenant's response is as unknown as none (404).
 */
const Id = z.object({ id: z.string().min(1).max(256) });
const Retrieve = z.object({ 'api-version': z.string().optional(), stream: z.enum(['true', 'false']).optional() });
const InputItemsQuery = z.object({
  'api-version': z.string().optional(),
  after: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});

export function storedResponseRoutes(stored: StoredResponses, prefixes: readonly string[]): Route[] {
  const common = (prefix: string) => ({ tags: [prefix ? 'group A' : 'OpenAI'], credential: lmKey, errorBody: openAiErrorBody });
  return prefixes.flatMap((prefix) => [
    define({
      method: 'get',
      path: `${prefix}/responses/:id`,
      ...common(prefix),
      summary: "A stored response (OpenAI Responses API): 404 unknown, expired, deleted or another tenant's",
      input: { path: Id, query: Retrieve },
      docs: storedResponseDocs,
      responses: { 200: { description: 'The response object' } },
      handle: async (input, { ctx }) => {
        if (input.stream === 'true') throw new InvalidParam('stream is not supported here: a stored response is read whole.', 'stream');
        return (await stored.get(ctx.caller.key.tenant, input.id)).response;
      },
    }),
    define({
      method: 'delete',
      path: `${prefix}/responses/:id`,
      ...common(prefix),
      summary: 'Deletes a stored response (OpenAI Responses API)',
      input: { path: Id, query: z.object({ 'api-version': z.string().optional() }) },
      docs: deletedResponseDocs,
      responses: { 200: { description: 'Deleted' } },
      handle: async (input, { ctx }) => {
        await stored.delete(ctx.caller.key.tenant, input.id);
        return { id: input.id, object: 'response', deleted: true };
      },
    }),
    define({
      method: 'get',
      path: `${prefix}/responses/:id/input_items`,
      ...common(prefix),
      summary: 'The conversation a stored response answered, a page at a time (newest first by default)',
      input: { path: Id, query: InputItemsQuery },
      docs: inputItemsDocs,
      responses: { 200: { description: 'A list of items' } },
      handle: async (input, { ctx }) => {
        const { data, hasMore } = await stored.inputItems(ctx.caller.key.tenant, input.id, {
          after: input.after,
          limit: input.limit,
          order: input.order,
        });
        return {
          object: 'list',
          data,
          first_id: (data[0]?.id as string | undefined) ?? null,
          last_id: (data.at(-1)?.id as string | undefined) ?? null,
          has_more: hasMore,
        };
      },
    }),
  ]);
}
