import { z } from 'zod';
import { BatchEmbedContentsRequest, EmbedContentRequest, GenerateContentRequest } from '../../core/models/vendors/gemini';
import { CONTEXT, failures, modelParam, QUESTION } from './docs';
import type { OperationDocs } from '../shared/routes';

/**
 * Group B in OpenAPI: one documented operation per `{model}:<method>` (Express takes the segment
 * whole), Google's answers and error body. The SDKs' versioned paths (`/v1beta`, `/v1`) are the
 * same operations, listed under their own tag.
 */
export const GoogleError = z.object({
  error: z.object({
    code: z.int(),
    message: z.string(),
    status: z.string().describe('google.rpc canonical code: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND, ...'),
    details: z
      .array(z.looseObject({ '@type': z.string() }))
      .optional()
      .describe('google.rpc.BadRequest (fieldViolations), ErrorInfo (reason), RetryInfo (retryDelay)'),
  }),
});

export const GenerateContentResponse = z.object({
  candidates: z.array(
    z.object({
      content: z.object({ parts: z.array(z.object({ text: z.string() })), role: z.literal('model') }),
      finishReason: z.enum(['STOP', 'MAX_TOKENS', 'SAFETY', 'OTHER']).optional().describe('On the last chunk of a stream'),
      index: z.int(),
    }),
  ),
  usageMetadata: z
    .object({ promptTokenCount: z.int(), candidatesTokenCount: z.int(), totalTokenCount: z.int() })
    .optional()
    .describe('On the last chunk of a stream'),
  responseId: z.string(),
  modelVersion: z.string(),
});

const Embedding = z.object({ values: z.array(z.number()) });
export const EmbedContentResponse = z.object({ embedding: Embedding });
export const BatchEmbedContentsResponse = z.object({ embeddings: z.array(Embedding) });
export const CountTokensResponse = z.object({ totalTokens: z.int() });

export const GeminiModel = z.object({
  name: z.string().describe('`models/<id>`'),
  baseModelId: z.string(),
  version: z.string(),
  displayName: z.string(),
  description: z.string(),
  inputTokenLimit: z.int(),
  outputTokenLimit: z.int(),
  supportedGenerationMethods: z.array(z.string()),
});
export const GeminiModelList = z.object({ models: z.array(GeminiModel) });

const errors = failures(GoogleError);
const chat = { systemInstruction: { parts: [{ text: CONTEXT }] }, contents: [{ role: 'user', parts: [{ text: QUESTION }] }] };

/** The five operations of `POST <base>/models/{model}:<method>`; `base` is `/gemini`, `/gemini/v1beta` or `/gemini/v1`. */
export const geminiCallDocs = (base: string, tags: string[]): OperationDocs[] =>
  callDocs(base, tags, base.split('/')[2] ? `Gemini ${base.split('/')[2]}` : 'Gemini');

const callDocs = (base: string, tags: string[], label: string): OperationDocs[] => [
  {
    path: `${base}/models/{model}:generateContent`,
    tags,
    summary: `${label} generateContent`,
    params: modelParam('local-chat'),
    body: { content: { 'application/json': GenerateContentRequest }, example: chat },
    responses: { 200: { description: 'The answer', schema: GenerateContentResponse }, ...errors },
  },
  {
    path: `${base}/models/{model}:streamGenerateContent`,
    tags,
    summary: `${label} streamGenerateContent`,
    description:
      '`?alt=sse` streams server-sent events (`data: <GenerateContentResponse>`, what the SDKs ask for); without it, one JSON array whose elements arrive as they are made.',
    params: {
      ...modelParam('local-chat'),
      alt: { in: 'query', required: false, schema: { type: 'string', enum: ['sse'] }, description: '`sse` for server-sent events' },
    },
    body: { content: { 'application/json': GenerateContentRequest }, example: chat },
    responses: {
      200: {
        description: 'The answer in chunks',
        content: { 'text/event-stream': GenerateContentResponse, 'application/json': z.array(GenerateContentResponse) },
      },
      ...errors,
    },
  },
  {
    path: `${base}/models/{model}:embedContent`,
    tags,
    summary: `${label} embedContent`,
    params: modelParam('local-embed'),
    body: { content: { 'application/json': EmbedContentRequest }, example: { content: { parts: [{ text: 'glaciers retreat' }] } } },
    responses: { 200: { description: 'The embedding', schema: EmbedContentResponse }, ...errors },
  },
  {
    path: `${base}/models/{model}:batchEmbedContents`,
    tags,
    summary: `${label} batchEmbedContents`,
    params: modelParam('local-embed'),
    body: {
      content: { 'application/json': BatchEmbedContentsRequest },
      example: { requests: [{ content: { parts: [{ text: 'glaciers' }] } }, { content: { parts: [{ text: 'sea levels' }] } }] },
    },
    responses: { 200: { description: 'The embeddings, in the order of the requests', schema: BatchEmbedContentsResponse }, ...errors },
  },
  {
    path: `${base}/models/{model}:countTokens`,
    tags,
    summary: `${label} countTokens`,
    description:
      "`contents`, or a whole `generateContentRequest` (its system instruction counted too), counted with the gateway's tokenizer.",
    params: modelParam('local-chat'),
    body: {
      content: {
        'application/json': z.object({
          contents: GenerateContentRequest.shape.contents.optional(),
          generateContentRequest: GenerateContentRequest.optional(),
        }),
      },
      example: { contents: chat.contents },
    },
    responses: { 200: { description: "The prompt's tokens", schema: CountTokensResponse }, ...errors },
  },
];

export const geminiListDocs = (tags: string[]): OperationDocs => ({
  tags,
  responses: {
    200: { description: 'The chat and embedding models this key may use', schema: GeminiModelList },
    400: errors[400],
    401: errors[401],
  },
});

export const geminiModelDocs = (base: string, tags: string[]): OperationDocs => ({
  path: `${base}/models/{model}`,
  tags,
  params: modelParam('local-chat'),
  responses: {
    200: { description: "The model's limits and methods", schema: GeminiModel },
    401: errors[401],
    403: errors[403],
    404: errors[404],
  },
});

export const geminiSchemas = {
  GoogleError,
  GenerateContentResponse,
  EmbedContentResponse,
  BatchEmbedContentsResponse,
  CountTokensResponse,
  GeminiModel,
  GeminiModelList,
};
