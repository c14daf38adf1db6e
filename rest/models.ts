import type { ModelsService } from '../core/models/service';
import type { CatalogModel } from '../core/models/catalog';
import type { ErrorBody } from './http-errors';
import { azureRoutes } from './models-azure';
import { define, type RestService } from './routes';

export const MODELS_PREFIX = '/proxy/api/v1';

/**
 * The gateway's own paths answer errors as OpenAI and Azure OpenAI do, `{"error": {"code",
 * "message"}}`; the provider routes answer in their vendor's format.
 */
export const modelsErrorBody: ErrorBody = (err, status) => {
  if ('issues' in err) return { detail: err.issues };
  return { error: { code: err.code ?? String(status), message: err.message } };
};

const modelView = (m: CatalogModel) => ({
  id: m.id,
  object: 'model',
  owned_by: m.upstream.provider,
  group: m.group,
  kind: m.kind,
  status: m.status,
  context_length: m.contextLength,
  max_output_tokens: m.maxOutputTokens ?? null,
  input_kinds: m.inputKinds,
  price: { input_per_million_tokens: m.price.inputPerMillion, output_per_million_tokens: m.price.outputPerMillion },
});

export function modelsRest(models: ModelsService): RestService {
  return {
    title: 'Model gateway',
    version: '1.2.2',
    prefix: MODELS_PREFIX,
    errorBody: modelsErrorBody,
    audience: 'models',
    routes: [
      define({
        method: 'get', path: '/models', summary: 'The catalog: every model this key may use', tags: ['catalog'],
        description: 'Needs the `api-key` header (`<key>` or `<key>/<options>`).',
        responses: { 200: { description: 'The models' }, 401: { description: 'No key, unknown or revoked key' }, 400: { description: 'A bad option in the key' } },
        handle: async (_input, { req, call }) => {
          const caller = models.authenticate(req.get('api-key'));
          return { object: 'list', data: (await models.listModels({ caller }, call)).map(modelView) };
        },
      }),
      ...azureRoutes(models),
    ],
  };
}
