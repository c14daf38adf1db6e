import { z } from 'zod';
import { collect, refusing } from '../../core/models/refusing';
import { responseObject, responseOutput, responseStreamEvents, type ResponseMeta } from '../../core/models/responses-events';
import { ResponsesRequest, responsesToChat } from '../../core/models/responses-wire';
import type { CatalogModel } from '../../core/models/catalog';
import type { ModelsService } from '../../core/models/service';
import { opaqueId } from '../../core/shared/ids';
import type { Route } from '../shared/routes';
import { streamObjects } from '../shared/stream';
import { ApiVersion, azureErrorBody, InvalidParam, openAiErrorBody, parseBody } from './doors';
import { define, gatewayHeaders, lmKey } from './common';
import { azureModelDocs, azureModelsDocs, responsesDocs } from './docs-responses';

/**
 * OpenAI's Responses API (`POST /responses`, `openai.responses`) at the OpenAI-compatible base
 * `/proxy/api/v1`, and the same on Azure's v1 layout (`azure.responses`) with Azure's model list:
 * `/azure/openai/v1/...` (the AzureOpenAI class with that baseURL) and `/azure/openai/...` (what
 * @ai-sdk/azure's `createAzure({ baseURL: '<base>/proxy/api/v1/azure/openai' })` calls). Any
 * catalog chat model answers, whatever its provider; errors are OpenAI's.
 */

const AZURE_PREFIXES = ['/azure/openai/v1', '/azure/openai'] as const;

/** Azure's model object: OpenAI's (`id`, `object`, `created`, `owned_by`) with Azure's capabilities and lifecycle. */
const azureModel = (m: CatalogModel) => ({
  id: m.id, object: 'model', created: 0, created_at: 0, owned_by: m.upstream.provider, status: 'succeeded',
  lifecycle_status: 'generally-available', deprecation: {},
  capabilities: { fine_tune: false, inference: true, completion: false, chat_completion: m.kind === 'chat', embeddings: m.kind === 'embedding' },
});

export function responsesRoutes(models: ModelsService): Route[] {
  const responses = (path: string, route: string) => define({
    method: 'post', path, tags: [route === 'openai.responses' ? 'OpenAI' : 'group A'],
    summary: 'Responses (OpenAI Responses API wire format; `stream: true` for server-sent events)',
    description: 'The key in `Authorization: Bearer <key>` or `api-key`. Function tools, `text.format` (JSON schema) and streaming as OpenAI sends them; '
      + 'no stored responses (`previous_response_id`, `item_reference` and `background` are refused).',
    input: { query: ApiVersion, body: z.unknown() }, credential: lmKey, errorBody: openAiErrorBody, docs: responsesDocs,
    responses: { 200: { description: 'A response object, or response.* events' } },
    handle: async (input, { req, res, ctx }) => {
      const id = (input.body as { model?: unknown } | null)?.model;
      if (typeof id !== 'string' || !id) throw new InvalidParam("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
      const model = await models.model({ id }, ctx);
      const { body, chat } = await refusing(models, { model, route }, ctx, () => {
        const b = parseBody(ResponsesRequest, input.body);
        return { body: b, chat: responsesToChat(b) };
      });
      const stream = await models.chat({ model, route, ...chat }, ctx);
      gatewayHeaders(res, stream);
      const meta: ResponseMeta = { id: `resp_${opaqueId()}`, createdAt: Math.floor(Date.now() / 1000), model: model.id, request: body };
      if (!body.stream) {
        const a = await collect(stream);
        return responseObject(meta, { ...a, output: responseOutput(a) });
      }
      await streamObjects(req, res, responseStreamEvents(meta, stream), { typedEvents: true });
      return undefined;
    },
  });
  const azureModels = (prefix: string) => define({
    method: 'get', path: `${prefix}/models`, tags: ['group A'], summary: 'The models this key may use (Azure OpenAI v1 model list)',
    input: { query: ApiVersion }, credential: lmKey, errorBody: azureErrorBody, docs: azureModelsDocs,
    responses: { 200: { description: 'The models' } },
    handle: async (_input, { ctx }) => ({ object: 'list', data: (await models.listModels({}, ctx)).map(azureModel) }),
  });
  const azureModelById = (prefix: string) => define({
    method: 'get', path: `${prefix}/models/:model`, tags: ['group A'], summary: 'One model this key may use (Azure OpenAI v1 model object): 404 unknown, 403 not allowed',
    input: { query: ApiVersion }, credential: lmKey, errorBody: azureErrorBody, docs: azureModelDocs,
    responses: { 200: { description: 'The model' } },
    handle: async (_input, { req, ctx }) => azureModel(await models.model({ id: String(req.params.model) }, ctx)),
  });
  return [
    responses('/responses', 'openai.responses'),
    ...AZURE_PREFIXES.flatMap((prefix) => [responses(`${prefix}/responses`, 'azure.responses'), azureModels(prefix), azureModelById(prefix)]),
  ];
}
