import { z } from 'zod';
import { collect } from '../../core/models/collect';
import {
  responseObject,
  responseOutput,
  responseStreamEvents,
  type ResponseMeta,
  type ResponseObject,
  ResponsesRequest,
  responsesToChat,
} from '../../core/models/vendors/openai';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { ModelsService } from '../../core/models/service';
import type { StoredResponses } from '../../core/models/answers/stored-responses';
import { opaqueId } from '../../core/shared/ids';
import type { Route } from '../shared/routes';
import { streamObjects } from '../shared/stream';
import { ApiVersion, azureErrorBody, InvalidParam, openAiErrorBody, parseBody } from './doors';
import { define, gatewayHeaders, lmKey } from './common';
import { azureModelDocs, azureModelsDocs, responsesDocs } from './docs-responses';
import { storedResponseRoutes } from './responses-stored';

/**
 * OpenAI's Responses API (`POST /responses`, `openai.responses`) at the OpenAI-compatible base
 * `/proxy/api/v1`, and the same on Azure's v1 layout (`azure.responses`) with Azure's model list:
 * `/azure/openai/v1/...` (the AzureOpenAI class with that baseURL) and `/azure/openai/...` (what
 * @ai-sdk/azure's `createAzure({ baseURL: '<base>/proxy/api/v1/azure/openai' })` calls). Any
 * catalog chat model answers, whatever its provider; errors are OpenAI's. A response made with
 * `store` not false is kept for its tenant (stored-responses.ts): a later request continues it or
 * names its items, and responses-stored.ts reads and deletes it.
 */

const AZURE_PREFIXES = ['/azure/openai/v1', '/azure/openai'] as const;

/** Azure's model object: OpenAI's (`id`, `object`, `created`, `owned_by`) with Azure's capabilities and lifecycle. */
const azureModel = (m: CatalogModel) => ({
  id: m.id,
  object: 'model',
  created: 0,
  created_at: 0,
  owned_by: m.upstream.provider,
  status: 'succeeded',
  lifecycle_status: 'generally-available',
  deprecation: {},
  capabilities: {
    fine_tune: false,
    inference: true,
    completion: false,
    chat_completion: m.kind === 'chat',
    embeddings: m.kind === 'embedding',
  },
});

export function responsesRoutes(models: ModelsService, stored: StoredResponses): Route[] {
  const responses = (path: string, route: string) =>
    define({
      method: 'post',
      path,
      tags: [route === 'openai.responses' ? 'OpenAI' : 'group A'],
      summary: 'Responses (OpenAI Responses API wire format; `stream: true` for server-sent events)',
      description:
        'The key in `Authorization: Bearer <key>` or `api-key`. Function tools, `text.format` (JSON schema) and streaming as OpenAI sends them. ' +
        "Unless `store` is false, the response is kept for the key's tenant (MODELS_RESPONSES_TTL_DAYS, 30 days by default): `previous_response_id` " +
        'continues it (its `instructions` are not carried over) and `item_reference` items name its output items. `background` is refused.',
      input: { query: ApiVersion, body: z.unknown() },
      credential: lmKey,
      errorBody: openAiErrorBody,
      docs: responsesDocs,
      responses: { 200: { description: 'A response object, or response.* events' } },
      handle: async (input, { req, res, ctx, heartbeatMs }) => {
        const id = (input.body as { model?: unknown } | null)?.model;
        if (typeof id !== 'string' || !id)
          throw new InvalidParam("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
        const model = await models.model({ id }, ctx);
        const tenant = ctx.caller.key.tenant;
        let body!: ResponsesRequest;
        let conversation!: Awaited<ReturnType<StoredResponses['conversation']>>;
        const stream = await models.chat(
          {
            model,
            route,
            read: async () => {
              body = parseBody(ResponsesRequest, input.body);
              conversation = await stored.conversation(tenant, body);
              return responsesToChat({ ...body, input: conversation });
            },
          },
          ctx,
        );
        gatewayHeaders(res, stream);
        const meta: ResponseMeta = { id: `resp_${opaqueId()}`, createdAt: Math.floor(Date.now() / 1000), model: model.id, request: body };
        const keep = async (response: ResponseObject) => {
          if (body.store !== false) await stored.keep(tenant, { id: meta.id, input: conversation, response });
        };
        if (!body.stream) {
          const a = await collect(stream);
          const response = responseObject(meta, { ...a, output: responseOutput(a) });
          await keep(response);
          return response;
        }
        await streamObjects(req, res, responseStreamEvents(meta, stream, keep), { typedEvents: true, heartbeatMs });
        return undefined;
      },
    });
  const azureModels = (prefix: string) =>
    define({
      method: 'get',
      path: `${prefix}/models`,
      tags: ['group A'],
      summary: 'The models this key may use (Azure OpenAI v1 model list)',
      input: { query: ApiVersion },
      credential: lmKey,
      errorBody: azureErrorBody,
      docs: azureModelsDocs,
      responses: { 200: { description: 'The models' } },
      handle: async (_input, { ctx }) => ({ object: 'list', data: (await models.listModels({}, ctx)).map(azureModel) }),
    });
  const azureModelById = (prefix: string) =>
    define({
      method: 'get',
      path: `${prefix}/models/:model`,
      tags: ['group A'],
      summary: 'One model this key may use (Azure OpenAI v1 model object): 404 unknown, 403 not allowed',
      input: { query: ApiVersion },
      credential: lmKey,
      errorBody: azureErrorBody,
      docs: azureModelDocs,
      responses: { 200: { description: 'The model' } },
      handle: async (_input, { req, ctx }) => azureModel(await models.model({ id: String(req.params.model) }, ctx)),
    });
  return [
    responses('/responses', 'openai.responses'),
    ...storedResponseRoutes(stored, ['', ...AZURE_PREFIXES]),
    ...AZURE_PREFIXES.flatMap((prefix) => [
      responses(`${prefix}/responses`, 'azure.responses'),
      azureModels(prefix),
      azureModelById(prefix),
    ]),
  ];
}
