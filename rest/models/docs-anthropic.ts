import { z } from 'zod';
import { CountTokensRequest, MessagesRequest } from '../../core/models/vendors/anthropic';
import { CONTEXT, failures, modelParam, QUESTION } from './docs';
import { AnthropicError, AnthropicMessage, AnthropicStreamEvent } from './docs-bedrock';
import type { OperationDocs } from '../shared/routes';

/** Anthropic's own API in OpenAPI (`/anthropic/v1/...`): its bodies, answers and error body, with an offline example. */
const errors = failures(AnthropicError);
const example = {
  model: 'local-chat',
  max_tokens: 200,
  system: [{ type: 'text', text: CONTEXT }],
  messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }],
  tools: [
    {
      name: 'get_weather',
      description: 'The weather in a city',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
};
const { max_tokens: _m, ...countExample } = example;

const ModelInfo = z.object({
  type: z.literal('model'),
  id: z.string(),
  display_name: z.string(),
  created_at: z.string(),
  max_input_tokens: z.int(),
  max_tokens: z.int().nullable(),
});
export const AnthropicModelList = z.object({
  data: z.array(ModelInfo),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});
export const AnthropicTokenCount = z.object({ input_tokens: z.int() });

const listParams = {
  limit: {
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 },
    description: 'Models per page',
  },
  after_id: { in: 'query', required: false, schema: { type: 'string' }, description: 'The page after this model' },
  before_id: { in: 'query', required: false, schema: { type: 'string' }, description: 'The page before this model' },
};

export const anthropicApiDocs: Record<'messages' | 'countTokens' | 'models' | 'model', OperationDocs> = {
  messages: {
    body: {
      content: { 'application/json': MessagesRequest },
      example,
      description: "The `model` is a catalog id. `system` and a message's `content` may also be a plain string.",
    },
    responses: {
      200: {
        description: 'A message; with `stream: true`, server-sent events',
        content: { 'application/json': AnthropicMessage, 'text/event-stream': AnthropicStreamEvent },
      },
      ...errors,
    },
  },
  countTokens: {
    body: { content: { 'application/json': CountTokensRequest }, example: countExample },
    responses: { 200: { description: "The prompt's tokens", schema: AnthropicTokenCount }, ...errors },
  },
  models: {
    params: listParams,
    responses: { 200: { description: 'The chat models this key may use', schema: AnthropicModelList }, 400: errors[400], 401: errors[401] },
  },
  model: {
    params: modelParam('local-chat', 'model_id'),
    responses: { 200: { description: 'The model', schema: ModelInfo }, 401: errors[401], 403: errors[403], 404: errors[404] },
  },
};

export const anthropicSchemas = { AnthropicModelList, AnthropicTokenCount };
