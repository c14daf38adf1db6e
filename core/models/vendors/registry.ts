import type { CatalogModel } from '../catalog';
import type { ModelProvider } from '../neutral';
import { azureOpenAiProvider } from './azure/provider';
import { bedrockProvider } from './bedrock/provider';
import { geminiProvider } from './gemini/provider';
import { localProvider } from './local/provider';
import { openAiCompatibleProvider } from './openai-compatible/provider';
import type { ProviderDeps, ProviderFactory } from './types';

export type { ProviderDeps, ProviderFactory };

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
