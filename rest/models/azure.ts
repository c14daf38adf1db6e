import { opaqueId } from '../../core/shared/ids';
import { z } from 'zod';
import {
  chatCompletion,
  chatCompletionChunks,
  ChatCompletionRequest,
  toChatMessages,
  toolsOf,
  embeddingInputs,
} from '../../core/models/vendors/openai';
import type { ModelsService } from '../../core/models/service';
import { collect } from '../../core/models/collect';
import { define, gatewayHeaders, lmKey } from './common';
import { chatDocs, embeddingsDocs } from './docs-azure';
import { DEPLOYMENTS, InvalidParam, parseBody, type Door } from './doors';
import type { Route } from '../shared/routes';
import { streamObjects } from '../shared/stream';
import { InternalError } from '../../core/shared/errors';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { sendEmbeddings } from './embeddings-answer';

/**
 * Chat completions and embeddings in the OpenAI wire format (requests, responses, SSE chunks,
 * errors), one handler each, mounted at every door (doors.ts): group A's Azure deployments, so the
 * `openai` SDK's AzureOpenAI client works with only its endpoint and key changed, and the OpenAI
 * layouts, so `new OpenAI({ baseURL })` does.
 */
const TokenIds = z
  .array(z.int().min(0))
  .min(1)
  .describe('Token ids (cl100k_base for the built-in and non-OpenAI models; as they came to an OpenAI-wire upstream)');
/** What OpenAPI shows; `input` is read by embeddingInputs (one loop over a megabyte of token ids, not a schema per id). */
const EmbeddingsRequestDocs = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048), TokenIds, z.array(TokenIds).min(1).max(2048)]),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.int().positive().optional(),
});
const EmbeddingsRequest = EmbeddingsRequestDocs.extend({ input: z.unknown() });

export function embeddingsRoute(models: ModelsService, door: Door): Route {
  return define({
    method: 'post',
    path: door.path('/embeddings'),
    tags: door.tags,
    summary: 'Embeddings (OpenAI wire format: texts or token ids; float or base64)',
    input: { query: door.query, body: z.unknown() },
    credential: lmKey,
    errorBody: door.errorBody,
    docs: embeddingsDocs(door, EmbeddingsRequestDocs),
    responses: { 200: { description: 'A list of embeddings' } },
    handle: async (input, { req, res, ctx }) => {
      const model = await door.modelOf(models, ctx, req, input['api-version'] as string | undefined, input.body);
      const route = `${door.vendor}.embeddings`;
      let body!: z.output<typeof EmbeddingsRequest>;
      const { vectors, promptTokens } = await models.embed(
        {
          model,
          route,
          read: () => {
            body = parseBody(EmbeddingsRequest, input.body);
            return { inputs: embeddingInputs(body.input), dimensions: body.dimensions };
          },
        },
        ctx,
      );
      if (body.dimensions !== undefined && body.dimensions !== vectors[0]?.length)
        throw new InvalidParam(`This model makes ${vectors[0]?.length}-dimensional vectors.`, 'dimensions');
      await sendEmbeddings(res, { model: model.id, vectors, promptTokens, format: body.encoding_format });
      return undefined;
    },
  });
}

export function chatRoute(models: ModelsService, door: Door): Route {
  return define({
    method: 'post',
    path: door.path('/chat/completions'),
    tags: door.tags,
    summary: 'Chat completions (OpenAI wire format; tools, response_format; `stream: true` for server-sent events)',
    input: { query: door.query, body: z.unknown() },
    credential: lmKey,
    errorBody: door.errorBody,
    docs: chatDocs(door),
    responses: { 200: { description: 'A chat.completion, or chat.completion.chunk events' } },
    handle: async (input, { req, res, ctx, heartbeatMs }) => {
      const model = await door.modelOf(models, ctx, req, input['api-version'] as string | undefined, input.body);
      const route = `${door.vendor}.chat.completions`;
      let body!: ChatCompletionRequest;
      const stream = await models.chat(
        {
          model,
          route,
          read: () => {
            body = parseBody(ChatCompletionRequest, input.body);
            if ((body.n ?? 1) !== 1) throw new InvalidParam('Only n = 1 is supported.', 'n');
            return {
              messages: toChatMessages(body.messages),
              ...toolsOf(body),
              maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
              temperature: body.temperature ?? undefined,
              topP: body.top_p ?? undefined,
              stream: body.stream === true,
              stop: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined),
            };
          },
        },
        ctx,
      );
      gatewayHeaders(res, stream);
      const meta = { id: `chatcmpl-${opaqueId()}`, created: Math.floor(Date.now() / 1000), model: model.id };
      if (!body.stream) return chatCompletion(meta, await collect(stream));
      await streamObjects(req, res, () => chatCompletionChunks(meta, stream, body.stream_options?.include_usage === true), {
        heartbeatMs,
        errorEvent: (err) => streamedError(door, err),
      });
      return undefined;
    },
  });
}

/**
 * A failure midway as the error object OpenAI streams (`{"error":{message,type,param,code}}`, what
 * the SDKs raise from a chunk): the door's own error body, so a routed stream cut after its first
 * piece reads like the same failure before it (never a stack).
 */
function streamedError(door: Door, err: unknown) {
  const e = toPlatformError(err);
  return door.errorBody(e.expose ? e : new InternalError('Internal server error'), STATUS[e.kind]);
}

/** Group A: the Azure OpenAI deployment paths. */
export const azureRoutes = (models: ModelsService): Route[] => [embeddingsRoute(models, DEPLOYMENTS), chatRoute(models, DEPLOYMENTS)];
