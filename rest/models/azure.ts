import { opaqueId } from '../../core/shared/ids';
import type { Request } from 'express';
import { z } from 'zod';
import { ChatCompletionRequest, toChatMessage } from '../../core/models/openai-wire';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import { BadRequest, ValidationFailed } from '../../core/shared/errors';
import { parseInput } from '../../core/shared/validation';
import type { ErrorBody } from '../shared/http-errors';
import { collect, refusing } from '../../core/models/refusing';
import type { Ctx } from '../../core/shared/context';
import { define, gatewayHeaders } from './common';
import { azureChatDocs, azureEmbeddingsDocs } from './docs-azure';
import type { Route } from '../shared/routes';
import { streamObjects } from '../shared/stream';

/**
 * Group A: Azure OpenAI's chat completions, in its wire format (requests, responses, SSE chunks,
 * errors), so the `openai` SDK's AzureOpenAI client works with only its endpoint and key changed.
 */
const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'invalid_request_error', 429: 'rate_limit_error' };

export const azureErrorBody: ErrorBody = (err, status) => ({
  error: { message: err.message, type: ERROR_TYPES[status] ?? 'api_error', param: (err as { param?: string }).param ?? null, code: err.code ?? String(status) },
});

export class InvalidParam extends BadRequest {
  constructor(message: string, readonly param: string | null, code = 'invalid_request_error') {
    super(message, { code });
  }
}

/** A 400 as the vendor words it, naming the first bad field, instead of FastAPI's 422. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, body ?? {});
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    const first = err.issues[0]!;
    throw new InvalidParam(`${first.msg}: '${first.loc.join('.')}'`, first.loc.join('.'));
  }
}

export const ApiVersion = z.object({ 'api-version': z.string().min(1).optional() });

/** Every group A call (its key already the caller's): the `api-version` Azure requires, the deployment's model (404/403). */
export async function deployment(models: ModelsService, ctx: Ctx<KeyCaller>, req: Request, apiVersion: string | undefined) {
  if (!apiVersion) throw new InvalidParam('The api-version query parameter (?api-version=) is required for all requests.', 'api-version', 'MissingApiVersionParameter');
  return models.model({ id: String(req.params.model) }, ctx);
}

const EmbeddingsRequest = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048)]),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.int().positive().optional(),
});

const base64Of = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

export function azureRoutes(models: ModelsService): Route[] {
  const embeddings = define({
    method: 'post', path: '/azure/openai/deployments/:model/embeddings', tags: ['group A'],
    summary: 'Embeddings (Azure OpenAI wire format; float or base64)',
    input: { query: ApiVersion, body: z.unknown() }, errorBody: azureErrorBody, docs: azureEmbeddingsDocs(EmbeddingsRequest),
    responses: { 200: { description: 'A list of embeddings' } },
    handle: async (input, { req, ctx }) => {
      const model = await deployment(models, ctx, req, input['api-version']);
      const route = 'azure.embeddings';
      const body = await refusing(models, { model, route }, ctx, () => parseBody(EmbeddingsRequest, input.body));
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const { vectors, promptTokens } = await models.embed({ model, route, inputs, dimensions: body.dimensions }, ctx);
      if (body.dimensions !== undefined && body.dimensions !== vectors[0]?.length) throw new InvalidParam(`This model makes ${vectors[0]?.length}-dimensional vectors.`, 'dimensions');
      return {
        object: 'list', model: model.id,
        data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: body.encoding_format === 'base64' ? base64Of(v) : Array.from(v) })),
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      };
    },
  });
  return [embeddings, define({
    method: 'post', path: '/azure/openai/deployments/:model/chat/completions', tags: ['group A'],
    summary: 'Chat completions (Azure OpenAI wire format; `stream: true` for server-sent events)',
    input: { query: ApiVersion, body: z.unknown() }, errorBody: azureErrorBody, docs: azureChatDocs,
    responses: { 200: { description: 'A chat.completion, or chat.completion.chunk events' } },
    handle: async (input, { req, res, ctx }) => {
      const model = await deployment(models, ctx, req, input['api-version']);
      const route = 'azure.chat.completions';
      const body = await refusing(models, { model, route }, ctx, () => {
        const b = parseBody(ChatCompletionRequest, input.body);
        if ((b.n ?? 1) !== 1) throw new InvalidParam('Only n = 1 is supported.', 'n');
        return { ...b, messages: b.messages.map(toChatMessage) };
      });
      const stream = await models.chat({
        model, route, messages: body.messages, maxTokens: body.max_completion_tokens ?? body.max_tokens,
        temperature: body.temperature, topP: body.top_p, stream: body.stream === true, stop: typeof body.stop === 'string' ? [body.stop] : body.stop ?? undefined,
      }, ctx);
      gatewayHeaders(res, stream);
      const id = `chatcmpl-${opaqueId()}`;
      const created = Math.floor(Date.now() / 1000);
      const usageOf = (u: { promptTokens: number; completionTokens: number }) =>
        ({ prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens });
      if (!body.stream) {
        const { text, finishReason, usage } = await collect(stream);
        return {
          id, object: 'chat.completion', created, model: model.id,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason, logprobs: null }],
          usage: usageOf(usage),
        };
      }
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        ({ id, object: 'chat.completion.chunk', created, model: model.id, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
      await streamObjects(req, res, async function* events() {
        yield chunk({ role: 'assistant', content: '' }, null);
        for await (const piece of stream.pieces) yield chunk({ content: piece }, null);
        const { finishReason, usage } = await stream.done;
        yield chunk({}, finishReason);
        if (body.stream_options?.include_usage) yield { id, object: 'chat.completion.chunk', created, model: model.id, choices: [], usage: usageOf(usage) };
      });
      return undefined;
    },
  })];
}
