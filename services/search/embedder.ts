import { gatewayEmbedder, inProcessEmbeddings, restEmbeddings } from '../../clients/models/embedder';
import type { Config } from '../../core/shared/config';
import type { Embedder } from '../../core/shared/text/embedder';
import type { ModelsInstance } from '../models';

interface EmbeddingSettings {
  SEARCH_EMBEDDING_MODEL?: string;
  SEARCH_EMBEDDING_DIMENSIONS?: number;
  SEARCH_EMBEDDING_API_KEY?: string;
  SEARCH_EMBEDDING_FUSION_WEIGHT?: number;
  MODELS_URL?: string;
}

export class EmbeddingConfigError extends Error {}

/**
 * The search service's embedder (docs/decisions.md): the built-in one, or SEARCH_EMBEDDING_MODEL
 * through the model gateway — in process when the gateway runs here, else over REST with an LM key.
 * A model the catalog lacks, or a remote gateway without a key or a size, stops start-up.
 */
export async function embedderFor(config: Config & EmbeddingSettings, models: ModelsInstance | undefined): Promise<Embedder | undefined> {
  const id = config.SEARCH_EMBEDDING_MODEL;
  if (!id) return undefined;
  if (models) {
    const model = models.catalog.find((m) => m.id === id);
    if (!model || model.kind !== 'embedding') throw new EmbeddingConfigError(`SEARCH_EMBEDDING_MODEL ${id} is not an embedding model of the catalog`);
    const dimensions = config.SEARCH_EMBEDDING_DIMENSIONS ?? model.dimensions;
    if (!dimensions) throw new EmbeddingConfigError(`SEARCH_EMBEDDING_DIMENSIONS is required: the catalog does not say how large ${id}'s vectors are`);
    const caller = config.SEARCH_EMBEDDING_API_KEY ? await models.keyCaller(config.SEARCH_EMBEDDING_API_KEY) : models.serviceCaller('search');
    return gatewayEmbedder({
      model: id, dimensions, fusionWeight: config.SEARCH_EMBEDDING_FUSION_WEIGHT ?? (model.upstream.provider === 'local' ? 0.03 : 1),
      source: inProcessEmbeddings(models.service, caller, model),
    });
  }
  if (!config.SEARCH_EMBEDDING_API_KEY || !config.SEARCH_EMBEDDING_DIMENSIONS) {
    throw new EmbeddingConfigError('SEARCH_EMBEDDING_API_KEY and SEARCH_EMBEDDING_DIMENSIONS are required when the model gateway runs elsewhere');
  }
  return gatewayEmbedder({
    model: id, dimensions: config.SEARCH_EMBEDDING_DIMENSIONS, fusionWeight: config.SEARCH_EMBEDDING_FUSION_WEIGHT ?? 1,
    source: restEmbeddings({ baseUrl: config.MODELS_URL ?? config.PUBLIC_URL, apiKey: config.SEARCH_EMBEDDING_API_KEY, model: id }),
  });
}
