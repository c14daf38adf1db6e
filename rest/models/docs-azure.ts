import { z } from 'zod';
import { ChatCompletionRequest } from '../../core/models/vendors/openai';
import { CONTEXT, failures, QUESTION } from './docs';
import type { Door } from './doors';
import type { OperationDocs } from '../shared/routes';

/** The OpenAI wire in OpenAPI (group A and the OpenAI door): requests, answers and errors (what the `openai` SDK reads). */
export const AzureError = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() }),
});

const FinishReason = z.enum(['stop', 'length', 'content_filter', 'tool_calls', 'error']);
const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string().describe('A JSON object as text') }),
});
const ToolCallDelta = z
  .object({
    index: z.int(),
    id: z.string().optional(),
    type: z.literal('function').optional(),
    function: z.object({ name: z.string().optional(), arguments: z.string() }),
  })
  .describe('A tool call streamed: one chunk names it (id, name, empty arguments), the next carries its arguments');
const TokenUsage = z.object({ prompt_tokens: z.int(), completion_tokens: z.int(), total_tokens: z.int() });

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable().describe('null when the answer only calls tools'),
        tool_calls: z.array(ToolCall).optional(),
        refusal: z.null(),
      }),
      finish_reason: FinishReason,
      logprobs: z.null(),
    }),
  ),
  usage: TokenUsage,
});

export const ChatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.int(),
    model: z.string(),
    choices: z
      .array(
        z.object({
          index: z.int(),
          delta: z.object({
            role: z.literal('assistant').optional(),
            content: z.string().optional(),
            tool_calls: z.array(ToolCallDelta).optional(),
          }),
          finish_reason: FinishReason.nullable(),
          logprobs: z.null(),
        }),
      )
      .describe('Empty in the last chunk when `stream_options.include_usage` asked for usage'),
    usage: TokenUsage.optional(),
  })
  .describe('One `data:` event of a streamed chat completion; the stream ends with `data: [DONE]`');

export const Embeddings = z.object({
  object: z.literal('list'),
  model: z.string(),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.int(),
      embedding: z.union([z.array(z.number()), z.string().describe('base64 float32 (encoding_format base64)')]),
    }),
  ),
  usage: z.object({ prompt_tokens: z.int(), total_tokens: z.int() }),
});

export const ImagesResponse = z.object({
  created: z.int(),
  data: z.array(
    z.object({
      url: z.string().optional().describe('A data: URL holding the picture (the default)'),
      b64_json: z.string().optional().describe('The picture as base64 (response_format b64_json)'),
      revised_prompt: z.string(),
    }),
  ),
});

export const Transcription = z.object({ text: z.string() });
export const VerboseTranscription = z.object({
  task: z.literal('transcribe'),
  language: z.string().nullable(),
  duration: z.number().nullable(),
  text: z.string(),
  segments: z.array(z.object({ id: z.int(), start: z.number(), end: z.number(), text: z.string() })),
});

const chatExample = {
  messages: [
    { role: 'system', content: CONTEXT },
    { role: 'user', content: QUESTION },
  ],
};
/** The OpenAI layouts name the model in the body. */
const withModel = (door: Door, example: object, model: string) => (door.modelInPath ? example : { model, ...example });

export const chatDocs = (door: Door): OperationDocs => ({
  params: door.params('local-chat'),
  body: { content: { 'application/json': ChatCompletionRequest }, example: withModel(door, chatExample, 'local-chat') },
  responses: {
    200: {
      description: 'A chat completion; with `stream: true`, server-sent events of chunks',
      content: { 'application/json': ChatCompletion, 'text/event-stream': ChatCompletionChunk },
    },
    ...failures(AzureError),
  },
});

export const embeddingsDocs = (door: Door, body: z.ZodType): OperationDocs => ({
  params: door.params('local-embed'),
  body: { content: { 'application/json': body }, example: withModel(door, { input: 'glaciers retreat' }, 'local-embed') },
  responses: { 200: { description: 'A list of embeddings', schema: Embeddings }, ...failures(AzureError) },
});

export const imagesDocs = (door: Door, body: z.ZodType): OperationDocs => ({
  params: door.params('local-image'),
  body: {
    content: { 'application/json': body },
    example: withModel(door, { prompt: 'a glacier at dawn', n: 1, size: '256x256', response_format: 'b64_json' }, 'local-image'),
  },
  responses: { 200: { description: 'The picture', schema: ImagesResponse }, ...failures(AzureError) },
});

/** `fields`: the form fields besides the audio `file`. */
export const transcriptionsDocs = (door: Door, fields: z.ZodObject): OperationDocs => ({
  params: {
    ...door.params(''),
    ...(door.modelInPath ? { model: { description: 'A transcription model of the catalog (none is built in)' } } : {}),
  },
  body: {
    content: {
      'multipart/form-data': fields.extend({
        file: z.file().describe('The audio: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav or webm, up to 25 MB'),
      }),
    },
  },
  responses: {
    200: {
      description: 'The transcript in the asked `response_format`: `json`, `verbose_json`, `text`, `srt` (text/plain) or `vtt`',
      content: { 'application/json': z.union([Transcription, VerboseTranscription]), 'text/plain': z.string(), 'text/vtt': z.string() },
    },
    ...failures(AzureError),
    413: { description: 'Audio file over 25 MB', schema: AzureError },
  },
});

export const azureSchemas = {
  AzureError,
  ChatCompletion,
  ChatCompletionChunk,
  Embeddings,
  ImagesResponse,
  Transcription,
  VerboseTranscription,
};
