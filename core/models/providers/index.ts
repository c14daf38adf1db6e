import type { CatalogModel } from '../catalog';
import type { ModelProvider } from '../chat';
import type { Offload } from '../offload';
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
  /** Worker threads for the built-in model's work on long prompts. */
  offload?: Offload;
}

/** An adapter: a catalog model's upstream in, the calls it can serve out. */
export type ProviderFactory = (model: CatalogModel, deps: ProviderDeps) => ModelProvider;

const FACTORIES: Record<CatalogModel['upstream']['provider'], ProviderFactory> = {
  local: (_model, deps) => localProvider(deps.offload),
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
