import type { CatalogModel } from '../catalog/catalog';
import type { ModelProvider } from '../neutral';
import type { ProviderDeps, ProviderFactory } from '../upstream/spec';
import { azureOpenAiProvider } from './azure';
import { bedrockProvider } from './bedrock';
import { geminiProvider } from './gemini';
import { localProvider } from './local';
import { openAiCompatibleProvider } from './openai-compatible';

export type { ProviderDeps, ProviderFactory };

/**
 * The vendors the catalog's `upstream.provider` names, one line each: a new vendor is its folder
 * here and its line below (and its name in catalog.ts's enum). Anthropic's folder has doors only.
 */
const VENDORS: Record<CatalogModel['upstream']['provider'], ProviderFactory> = {
  local: (_model, deps) => localProvider(deps.offload),
  'azure-openai': azureOpenAiProvider,
  'openai-compatible': openAiCompatibleProvider,
  gemini: geminiProvider,
  bedrock: bedrockProvider,
};

/**
 * The provider of each catalog model, made once per model and upstream: an administrator's new
 * entry with another upstream (core/models/catalog/live-catalog.ts) gets a provider of its own.
 * A deployment's (issue 35) is kept under `key` (`<model>@<deployment>`), made from a copy of the
 * model with the deployment's upstream.
 */
export function providerRegistry(deps: ProviderDeps): (model: CatalogModel, key?: string) => ModelProvider {
  const made = new Map<string, { upstream: string; provider: ModelProvider }>();
  return (model, key = model.id) => {
    const upstream = JSON.stringify(model.upstream);
    let p = made.get(key);
    if (p?.upstream !== upstream) made.set(key, (p = { upstream, provider: VENDORS[model.upstream.provider](model, deps) }));
    return p.provider;
  };
}
