import { z } from 'zod';
import { GenerateAnswerBody, GetSourcesBody } from '../../core/chat/inputs';
import { HTTPValidationErrorSchema } from '../shared/openapi';
import type { OperationDocs, ServiceDocs } from '../shared/routes';
import type { ResponseSpec } from '../shared/routes';

/**
 * The chat proxy in OpenAPI: its answers, stream chunks, sources and errors, and where its
 * credentials go. They travel in the body (spec), so the document has no security scheme: the
 * examples show the two fields to fill.
 */
export const chatServiceDocs: ServiceDocs = {
  description:
    "Credentials travel in the body, not in headers: `request.user_cred.token` is a user's access token from the token " +
    'service, `request.user_cred.client.tenant_id` its tenant, and `api_key` an LM key of the model gateway (for the model call). ' +
    'Replace the three placeholders of an example with yours (`npm run -s platform -- credentials` shows the demo ones).',
};

const FinishReason = z.enum(['stop', 'length', 'content_filter', 'tool_calls', 'error']);
const ToolCalls = z
  .array(
    z.object({
      id: z.string(),
      type: z.literal('function'),
      function: z.object({ name: z.string(), arguments: z.string().describe('JSON text') }),
    }),
  )
  .describe('The calls the model made to `tool_defns` (finish_reason `tool_calls`); absent otherwise');
export const Answer = z.object({
  response: z.string(),
  generated_search_text: z.string(),
  finish_reason: FinishReason,
  tool_calls: ToolCalls.optional(),
});
export const AnswerChunk = z
  .object({
    generated_search_text: z.string(),
    response: z.string().describe('This piece of the answer'),
    finish_reason: FinishReason.nullable().describe(
      'Set on the last chunk only (`error`: the model failed midway; `tool_calls`: it called tools)',
    ),
    tool_calls: ToolCalls.optional().describe('On the last chunk when the model called tools'),
  })
  .describe('One chunk: a `data:` event (text/event-stream, ending with `data: [DONE]`) or one line (application/x-ndjson)');

export const Sources = z.object({
  sources: z.object({
    gen_search_text: z.string(),
    model_info: z.record(z.string(), z.unknown()),
    examples: z.array(z.object({ user_query: z.string(), response: z.string() })),
    query: z.string(),
    all_input_texts: z.record(z.string(), z.string()).describe('The passages the answer would be grounded in, by source'),
    llm_data: z.record(z.string(), z.unknown()),
    history_prompt: z.array(z.object({ user_query: z.string(), response: z.string().optional() })),
    num_new_uploads: z.int(),
    citations: z
      .array(
        z.object({
          citation: z.int(),
          object_id: z.string(),
          title: z.string(),
          file_name: z.string().nullable(),
          source_category: z.string(),
          score: z.number(),
        }),
      )
      .describe('Extension: the passages behind all_input_texts, with their citation numbers'),
  }),
  success: z.literal(true),
});
export const ChatError = z.object({ detail: z.string() });

const refusals: Record<number, ResponseSpec> = {
  401: { description: 'Missing or invalid `request.user_cred.token`, or a missing, unknown or revoked `api_key`', schema: ChatError },
  403: {
    description: "The token's tenant is not `request.user_cred.client.tenant_id`, it lacks `search:read`, or the key may not use the model",
    schema: ChatError,
  },
  404: { description: 'Unknown or deactivated model', schema: ChatError },
  413: { description: 'Request body too large', schema: ChatError },
  422: { description: 'A body field of the wrong type, or no query', schema: HTTPValidationErrorSchema },
  429: { description: "The key's rate or token budget is spent", schema: ChatError },
  502: { description: 'The search service or the model failed', schema: ChatError },
  504: { description: 'The search service or the model did not answer in time', schema: ChatError },
};

const userCred = { token: '<access token of a user>', client: { tenant_id: '<tenant id>' } };
const answerExample = { request: { user_cred: userCred }, query: 'Why do glaciers retreat?', api_key: '<LM key>' };

export const chatDocs: Record<'answer' | 'stream' | 'sources', OperationDocs> = {
  answer: {
    body: { content: { 'application/json': GenerateAnswerBody }, example: answerExample },
    responses: { 200: { description: 'The whole answer', schema: Answer }, ...refusals },
  },
  stream: {
    body: { content: { 'application/json': GenerateAnswerBody }, example: answerExample },
    responses: {
      200: {
        description: 'The answer, chunk by chunk',
        content: { 'text/event-stream': AnswerChunk, 'application/x-ndjson': AnswerChunk },
      },
      ...refusals,
    },
  },
  sources: {
    body: {
      content: { 'application/json': GetSourcesBody },
      example: { request: { user_cred: userCred, query: 'Why do glaciers retreat?' }, bot_details: { num_new_uploads: 0 }, chat_hist: [] },
    },
    responses: { 200: { description: 'The sources', schema: Sources }, ...refusals },
  },
};

export const chatSchemas = { Answer, AnswerChunk, Sources, ChatError };
