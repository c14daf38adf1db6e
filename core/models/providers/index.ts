import type { CatalogModel } from '../catalog';
import type { ModelProvider } from '../chat';
import type { UpstreamHttp } from '../upstream/http';
import { azureOpenAiProvider } from './azure-openai';
import { bedrockProvider } from './bedrock';
import { geminiProvider } from './gemini';
import { localProvider } from './local';
import { openAiCompatibleProvider } from './openai-compatible';

/** What an adapter gets: the environment (credentials are named by the catalog, read from here) and the pooled HTTP client. */
export interface ProviderDeps {
  env: Readonly<Record<string, string | undefined>>;
  http: UpstreamHttp;
}

/** An adapter: a catalog model's upstream in, the calls it can serve out. */
export type ProviderFactory = (model: CatalogModel, deps: ProviderDeps) => ModelProvider;

const FACTORIES: Record<CatalogModel['upstream']['provider'], ProviderFactory> = {
  local: () => localProvider(),
  'azure-openai': azureOpenAiProvider,
  'openai-compatible': openAiCompatibleProvider,
  gemini: geminiProvider,
  bedrock: bedrockProvider,
};

/** The provider of each catalog model, made once per model. */
export function providerRegistry(deps: ProviderDeps): (model: CatalogModel) => ModelProvider {
  const made = new Map<string, ModelProvider>();
  return (model) => {
    let p = made.get(model.id);
    if (!p) made.set(model.id, (p = FACTORIES[model.upstream.provider](model, deps)));
    return p;
  };
}
