import { z } from 'zod';
import { ResponsesRequest } from '../../core/models/vendors/openai';
import type { OperationDocs } from '../shared/routes';
import { AzureError } from './docs-azure';
import { CONTEXT, failures, QUESTION } from './docs';

/** The Responses API and Azure's v1 model list in OpenAPI: what the openai SDK and @ai-sdk/openai read. */
const OutputText = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.never()),
  logprobs: z.array(z.never()),
});
const OutputItem = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), id: z.string(), status: z.string(), role: z.literal('assistant'), content: z.array(OutputText) }),
  z.object({
    type: z.literal('function_call'),
    id: z.string(),
    status: z.string(),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string().describe('JSON text'),
  }),
]);

export const ResponseObject = z
  .object({
    id: z.string().describe('resp_...'),
    object: z.literal('response'),
    created_at: z.int(),
    status: z.enum(['in_progress', 'completed', 'incomplete', 'failed']),
    incomplete_details: z.object({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    model: z.string(),
    output: z.array(OutputItem),
    instructions: z.string().nullable(),
    usage: z
      .object({
        input_tokens: z.int(),
        input_tokens_details: z.object({ cached_tokens: z.int() }),
        output_tokens: z.int(),
        output_tokens_details: z.object({ reasoning_tokens: z.int() }),
        total_tokens: z.int(),
      })
      .nullable(),
  })
  .describe("The request's settings are echoed too (tools, tool_choice, text, temperature, top_p, metadata, ...)");

export const ResponseStreamEvent = z
  .object({
    type: z
      .string()
      .describe(
        'response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta, ' +
          'response.output_text.done, response.content_part.done, response.output_item.done, response.function_call_arguments.delta / .done, ' +
          'response.completed or response.incomplete; `error` when the model fails midway',
      ),
    sequence_number: z.int(),
  })
  .catchall(z.unknown())
  .describe('One event, written as `event: <type>` then `data: <json>`; no `[DONE]`');

export const AzureModelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.string(),
      object: z.literal('model'),
      created: z.int(),
      created_at: z.int(),
      owned_by: z.string(),
      status: z.literal('succeeded'),
      lifecycle_status: z.string(),
      deprecation: z.object({}),
      capabilities: z.object({
        fine_tune: z.boolean(),
        inference: z.boolean(),
        completion: z.boolean(),
        chat_completion: z.boolean(),
        embeddings: z.boolean(),
      }),
    }),
  ),
});

export const responsesDocs: OperationDocs = {
  body: {
    content: { 'application/json': ResponsesRequest },
    example: {
      model: 'local-chat',
      instructions: CONTEXT,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: QUESTION }] }],
    },
    description:
      "`input` may also be one string (a user message), and a message's `content` one string (a text part); `type` may be left out of a message item.",
  },
  responses: {
    200: {
      description: 'A response; with `stream: true`, server-sent events',
      content: { 'application/json': ResponseObject, 'text/event-stream': ResponseStreamEvent },
    },
    ...failures(AzureError),
  },
};

const storedFailures = {
  401: { description: 'No key, or an unknown or revoked key', schema: AzureError },
  404: {
    description: "No such response for this key's tenant (unknown, expired, deleted, made with `store: false`, or another tenant's)",
    schema: AzureError,
  },
};
const responseId = { id: { description: "The response's id (`resp_...`)", example: 'resp_0123456789abcdef0123456789abcdef' } };
export const storedResponseDocs: OperationDocs = {
  params: responseId,
  responses: {
    200: { description: 'The response object, as it was answered', schema: ResponseObject },
    ...storedFailures,
    400: { description: '`stream=true` (not served)', schema: AzureError },
  },
};
export const deletedResponseDocs: OperationDocs = {
  params: responseId,
  responses: {
    200: { description: 'Deleted', schema: z.object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) }) },
    ...storedFailures,
  },
};
export const inputItemsDocs: OperationDocs = {
  params: {
    ...responseId,
    after: { description: 'The id of the item after which the page starts' },
    limit: { description: 'Items per page, 1 to 100 (20)' },
    order: { description: '`desc` (newest first, the default) or `asc`' },
  },
  responses: {
    200: {
      description: "The conversation the response answered (the previous responses' items, then its own input), each item with an id",
      schema: z.object({
        object: z.literal('list'),
        data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
        first_id: z.string().nullable(),
        last_id: z.string().nullable(),
        has_more: z.boolean(),
      }),
    },
    ...storedFailures,
  },
};

const modelsFailures = { 401: { description: 'No key, or an unknown or revoked key', schema: AzureError } };
export const azureModelsDocs: OperationDocs = {
  responses: { 200: { description: 'The models this key may use', schema: AzureModelList }, ...modelsFailures },
};
export const azureModelDocs: OperationDocs = {
  params: { model: { description: 'A model of the catalog (its id)', example: 'local-chat' } },
  responses: {
    200: { description: 'The model', schema: AzureModelList.shape.data.element },
    ...modelsFailures,
    404: { description: 'Unknown or deactivated model', schema: AzureError },
  },
};

export const responsesSchemas = { ResponseObject, ResponseStreamEvent, AzureModelList };
