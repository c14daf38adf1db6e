import { z } from 'zod';
import { AnthropicRequest } from '../../core/models/vendors/anthropic';
import { ConverseRequest, NovaInvokeRequest } from '../../core/models/vendors/bedrock';
import { CohereEmbedRequest, TitanEmbedRequest } from './bedrock-embed';
import { CONTEXT, failures, QUESTION } from './docs';
import type { Json } from '../shared/openapi';
import type { OperationDocs } from '../shared/routes';

/**
 * Group C in OpenAPI: Bedrock Converse and the runtime's paths (`modelId` in the path), Anthropic
 * Messages (`?modelId=`), their answers and error bodies.
 */
export const BedrockError = z.object({
  message: z.string(),
  __type: z
    .string()
    .describe('The exception the AWS SDKs raise (also in x-amzn-ErrorType): ValidationException, AccessDeniedException, ...'),
  reason: z.string().optional().describe("The gateway's code (guardrail_violation, ...)"),
});
export const AnthropicError = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string(), code: z.string().optional() }),
});

const StopReason = z.enum(['end_turn', 'max_tokens', 'content_filtered']);
const ConverseUsage = z.object({ inputTokens: z.int(), outputTokens: z.int(), totalTokens: z.int() });
const AssistantMessage = z.object({
  message: z.object({ role: z.literal('assistant'), content: z.array(z.object({ text: z.string() })) }),
});

export const ConverseResponse = z.object({
  output: AssistantMessage,
  stopReason: StopReason,
  usage: ConverseUsage,
  metrics: z.object({ latencyMs: z.number() }),
});
export const AnthropicMessage = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
    ]),
  ),
  stop_reason: z.enum(['end_turn', 'max_tokens', 'refusal', 'tool_use']),
  stop_sequence: z.null(),
  usage: z.object({ input_tokens: z.int(), output_tokens: z.int() }),
});
export const AnthropicStreamEvent = z
  .looseObject({
    type: z.enum([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
      'error',
    ]),
  })
  .describe(
    'One event (`event: <type>` then `data: <this>`): message_start, content_block_start, ping, content_block_delta..., content_block_stop, message_delta, message_stop',
  );
export const NovaInvokeResponse = z.object({ output: AssistantMessage, stopReason: StopReason, usage: ConverseUsage });
export const LlamaResponse = z.object({
  generation: z.string(),
  prompt_token_count: z.int(),
  generation_token_count: z.int(),
  stop_reason: z.enum(['stop', 'length']),
});

const errors = failures(BedrockError);
const modelId = {
  description: 'A model of the catalog (its id; a Bedrock model or inference profile id, or an ARN, %-escaped)',
  example: 'local-chat',
};
const converseExample = {
  system: [{ text: CONTEXT }],
  messages: [{ role: 'user', content: [{ text: QUESTION }] }],
  inferenceConfig: { maxTokens: 200 },
};
const anthropicExample = {
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 200,
  system: [{ type: 'text', text: CONTEXT }],
  messages: [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }],
};
const eventStream = (description: string): Json => ({
  type: 'string',
  contentMediaType: 'application/vnd.amazon.eventstream',
  description,
});

/** The runtime's paths take `{modelId}` in the path; the messages routes take `?modelId=`. */
const modelIdParam = (path: string) => ({
  modelId: path.includes(':modelId') ? modelId : { in: 'query', required: true, schema: { type: 'string' }, ...modelId },
});

export const converseDocs = (path: string): OperationDocs => ({
  params: modelIdParam(path),
  body: { content: { 'application/json': ConverseRequest }, example: converseExample },
  responses: { 200: { description: 'The Converse answer', schema: ConverseResponse }, ...errors },
});

export const anthropicDocs: OperationDocs = {
  params: modelIdParam('?modelId'),
  body: {
    content: { 'application/json': AnthropicRequest },
    example: anthropicExample,
    description: "`system` and a message's `content` may also be a plain string.",
  },
  responses: {
    200: {
      description: 'A message; with `stream: true`, server-sent events',
      content: { 'application/json': AnthropicMessage, 'text/event-stream': AnthropicStreamEvent },
    },
    ...failures(AnthropicError),
  },
};

export const converseStreamDocs: OperationDocs = {
  params: modelIdParam(':modelId'),
  body: { content: { 'application/json': ConverseRequest }, example: converseExample },
  responses: {
    200: {
      description: 'messageStart, contentBlockDelta..., contentBlockStop, messageStop, metadata',
      content: { 'application/vnd.amazon.eventstream': eventStream('AWS event stream') },
    },
    ...errors,
  },
};

/** `/invoke` and its stream; `llama`: the Llama native body (the route's module holds it). */
export function invokeDocs(llama: z.ZodType): Record<'invoke' | 'stream', OperationDocs> {
  const body = {
    content: { 'application/json': z.union([AnthropicRequest, NovaInvokeRequest, llama, TitanEmbedRequest, CohereEmbedRequest]) },
    example: anthropicExample,
    description:
      'An Anthropic Messages, Nova or Llama native body (told apart by their fields); for an embedding model, a Titan (`inputText`) or Cohere (`texts`) body.',
  };
  return {
    invoke: {
      params: modelIdParam(':modelId'),
      body,
      responses: {
        200: { description: "The model family's native answer", schema: z.union([AnthropicMessage, NovaInvokeResponse, LlamaResponse]) },
        ...errors,
      },
    },
    stream: {
      params: modelIdParam(':modelId'),
      body,
      responses: {
        200: {
          description: '`chunk` events whose bytes are the native stream events',
          content: { 'application/vnd.amazon.eventstream': eventStream('AWS event stream of `chunk` events') },
        },
        ...errors,
      },
    },
  };
}

export const bedrockSchemas = {
  BedrockError,
  AnthropicError,
  ConverseResponse,
  AnthropicMessage,
  AnthropicStreamEvent,
  NovaInvokeResponse,
  LlamaResponse,
};
