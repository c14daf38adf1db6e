import type { ModelsService } from '../../core/models/service';
import type { StoredResponses } from '../../core/models/answers/stored-responses';
import type { ErrorBody } from '../shared/http-errors';
import { z } from 'zod';
import { anthropicApiRoutes } from './anthropic-api';
import { azureRoutes } from './azure';
import { azureMediaRoutes } from './azure-media';
import { bedrockRoutes } from './bedrock';
import { catalogRoutes } from './catalog';

import { openAiRoutes } from './openai';
import { geminiRoutes } from './gemini';
import { responsesRoutes } from './responses';
import type { RestService } from '../shared/routes';
import { define, lmKey } from './common';
import { modelsDocs, modelsSchemas, modelsServiceDocs } from './docs';
import { anthropicSchemas } from './docs-anthropic';
import { azureSchemas } from './docs-azure';
import { bedrockSchemas } from './docs-bedrock';
import { geminiSchemas } from './docs-gemini';
import { responsesSchemas } from './docs-responses';
import { MODELS_PREFIX } from './prefix';

export { MODELS_PREFIX };

/**
 * The gateway's own paths answer errors as OpenAI and Azure OpenAI do, `{"error": {"code",
 * "message"}}` (the catalog's and the OpenAI door's also with `type` and `param`); the provider
 * routes answer in their vendor's format.
 */
export const modelsErrorBody: ErrorBody = (err, status) => {
  if ('issues' in err) return { detail: err.issues };
  return { error: { code: err.code ?? String(status), message: err.message } };
};

const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
const UsageQuery = z.object({ from: instant.optional(), to: instant.optional() });

export function modelsRest(models: ModelsService, stored: StoredResponses): RestService {
  return {
    title: 'Model gateway',
    version: '1.2.2',
    prefix: MODELS_PREFIX,
    errorBody: modelsErrorBody,
    audience: 'models',
    // The AWS SDK calls the Bedrock paths over h2c.
    http2Cleartext: true,
    // The AWS SDKs send InvokeModel bodies as application/octet-stream unless told otherwise.
    jsonTypes: ['application/json', 'application/octet-stream'],
    docs: modelsServiceDocs,
    schemas: { ...modelsSchemas, ...azureSchemas, ...geminiSchemas, ...bedrockSchemas, ...responsesSchemas, ...anthropicSchemas },
    routes: [
      ...catalogRoutes(models),
      define({
        method: 'get',
        path: '/usage',
        summary: "Usage of the key's tenant: calls, tokens, words, cache hits, errors and cost, in all and per model",
        tags: ['usage'],
        description:
          'Needs an LM key in the `api-key` header or as `Authorization: Bearer`. `from` and `to` (ISO 8601) bound the period; the last 30 days by default.',
        input: { query: UsageQuery },
        docs: modelsDocs.usage,
        credential: lmKey,
        responses: { 200: { description: 'Usage totals' }, 401: { description: 'No key, unknown or revoked key' } },
        handle: async (input, { ctx }) => {
          const to = input.to ? new Date(input.to) : new Date(Date.now() + 1);
          const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * 86_400_000);
          const u = await models.usage({ from, to }, ctx);
          return {
            object: 'usage',
            tenant_id: ctx.caller.key.tenant,
            from: from.toISOString(),
            to: to.toISOString(),
            totals: u.totals,
            by_model: u.byModel,
          };
        },
      }),
      ...azureRoutes(models),
      ...azureMediaRoutes(models),
      ...openAiRoutes(models),
      ...geminiRoutes(models),
      ...bedrockRoutes(models),
      ...responsesRoutes(models, stored),
      ...anthropicApiRoutes(models),
    ],
  };
}
