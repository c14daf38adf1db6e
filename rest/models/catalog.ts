import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { ModelsService } from '../../core/models/service';
import { define, lmKey } from './common';
import { modelsDocs } from './docs';
import { openAiErrorBody } from './doors';
import type { Route } from '../shared/routes';

/**
 * The catalog as OpenAI lists and retrieves models (`GET /models`, `GET /models/{id}`: the `openai`
 * SDK's `models.list()` and `models.retrieve(id)`), each model with the gateway's own fields besides
 * OpenAI's `id`, `object` and `owned_by`.
 */
const modelView = (m: CatalogModel) => ({
  id: m.id,
  object: 'model',
  owned_by: m.upstream.provider,
  group: m.group,
  kind: m.kind,
  status: m.status,
  context_length: m.contextLength,
  dimensions: m.dimensions ?? null,
  max_output_tokens: m.maxOutputTokens ?? null,
  input_kinds: m.inputKinds,
  price: { input_per_million_tokens: m.price.inputPerMillion, output_per_million_tokens: m.price.outputPerMillion },
});

export function catalogRoutes(models: ModelsService): Route[] {
  return [
    define({
      method: 'get',
      path: '/models',
      summary: 'The catalog: every model this key may use',
      tags: ['catalog'],
      description: 'Needs an LM key (`<key>` or `<key>/<options>`) in the `api-key` header or as `Authorization: Bearer`.',
      docs: modelsDocs.models,
      credential: lmKey,
      errorBody: openAiErrorBody,
      responses: {
        200: { description: 'The models' },
        401: { description: 'No key, unknown or revoked key' },
        400: { description: 'A bad option in the key' },
      },
      handle: async (_input, { ctx }) => ({ object: 'list', data: (await models.listModels({}, ctx)).map(modelView) }),
    }),
    define({
      method: 'get',
      path: '/models/:id',
      summary: "One model of the catalog (OpenAI's retrieve)",
      tags: ['catalog'],
      description: 'Needs an LM key, as `GET /models`. A model the key may not use is 403; an unknown or deactivated one 404.',
      docs: modelsDocs.model,
      credential: lmKey,
      errorBody: openAiErrorBody,
      responses: {
        200: { description: 'The model' },
        401: { description: 'No key, unknown or revoked key' },
        404: { description: 'Unknown or deactivated model' },
      },
      handle: async (_input, { req, ctx }) => modelView(await models.model({ id: String(req.params.id) }, ctx)),
    }),
  ];
}
