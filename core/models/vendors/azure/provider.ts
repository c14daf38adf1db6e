import { UpstreamFailed } from '../../../shared/errors';
import type { CatalogModel } from '../../catalog/catalog';
import { httpProvider } from '../../upstream/http-provider';
import type { Env, HttpApi } from '../../upstream/spec';
import { credentialOf, trimBase } from '../credentials';
import { openAiApi } from '../openai/api';

/** The GA api-version that has chat (with stream usage), embeddings, image generation and transcription. */
export const AZURE_API_VERSION = '2024-10-21';

/**
 * Azure OpenAI as data: `{baseUrl}/openai/deployments/{deployment}/{operation}?api-version=...`
 * with the resource key in `api-key`, the OpenAI wire otherwise. The deployment is the catalog's
 * upstream model (or the model's id).
 */
export function azureApi(model: CatalogModel, env: Env): HttpApi {
  const vendor = 'Azure OpenAI';
  const version = encodeURIComponent(model.upstream.apiVersion ?? AZURE_API_VERSION);
  return openAiApi({
    vendor,
    url: (operation, deployment) => {
      if (!model.upstream.baseUrl) {
        throw new UpstreamFailed(`The gateway has no Azure OpenAI endpoint for ${model.id}; its upstream configuration needs fixing`, {
          code: 'upstream_misconfigured',
        });
      }
      return `${trimBase(model.upstream.baseUrl)}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${version}`;
    },
    auth: () => ({ 'api-key': credentialOf(model, env, vendor, true)! }),
    modelInBody: false,
    maxTokensField: 'max_completion_tokens',
  });
}

export const azureOpenAiProvider = httpProvider(azureApi);
