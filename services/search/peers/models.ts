import { httpClient } from '../../../clients/shared/http';
import type { CatalogModel } from '../../../core/models/catalog/catalog';
import type { KeyCaller, ModelsService } from '../../../core/models/service';
import type { Config } from '../../../core/shared/config';
import { BadRequest } from '../../../core/shared/errors';
import type { Embedder } from '../../../core/shared/text/embedder';
import type { ModelsInstance } from '../../models';

// The search service's adapters to the model gateway (its peer): the embedder, in process when the
// gateway runs here, over its REST paths when it runs elsewhere, and the choice between them.

/**
 * The search service's embedder when it embeds through the model gateway (SEARCH_EMBEDDING_MODEL):
 * the gateway's own service when it runs in this process, its REST route (group A embeddings)
 * when it runs elsewhere. Either way the call is the gateway's: keys, limits and usage apply.
 */
export interface EmbeddingSource {
  embed(inputs: string[]): Promise<Float32Array[]>;
}

/** Batches of at most 2,048 inputs (Azure's limit); checks every vector has the promised size. */
export function gatewayEmbedder(opts: { model: string; dimensions: number; fusionWeight: number; source: EmbeddingSource }): Embedder {
  const batch = 2048;
  return {
    id: `gateway:${opts.model}`,
    dimensions: opts.dimensions,
    fusionWeight: opts.fusionWeight,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batch) out.push(...(await opts.source.embed(texts.slice(i, i + batch))));
      const wrong = out.find((v) => v.length !== opts.dimensions);
      if (wrong) {
        throw new BadRequest(
          `The embedding model ${opts.model} makes ${wrong.length}-dimensional vectors; search expects ${opts.dimensions} (SEARCH_EMBEDDING_DIMENSIONS).`,
          { code: 'embedding_dimensions' },
        );
      }
      return out;
    },
  };
}

/** Through the gateway's service in this process, as `caller`. */
export const inProcessEmbeddings = (models: ModelsService, caller: KeyCaller, model: CatalogModel): EmbeddingSource => ({
  embed: async (inputs) => (await models.embed({ model, route: 'search.embed', inputs }, { caller })).vectors,
});

/** Through the gateway's REST route at `baseUrl` (the platform's public URL), with an LM key. */
export function restEmbeddings(opts: { baseUrl: string; apiKey: string; model: string; timeoutMs?: number }): EmbeddingSource {
  const http = httpClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs ?? 60_000 });
  const path = `/proxy/api/v1/azure/openai/deployments/${encodeURIComponent(opts.model)}/embeddings`;
  return {
    async embed(inputs) {
      const r = await http.request<{ data: { index: number; embedding: number[] }[] }>('POST', path, {
        query: { 'api-version': '2024-10-21' },
        json: { input: inputs },
        headers: { 'api-key': opts.apiKey },
      });
      return [...r.data].sort((a, b) => a.index - b.index).map((d) => Float32Array.from(d.embedding));
    },
  };
}

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
    if (!model || model.kind !== 'embedding')
      throw new EmbeddingConfigError(`SEARCH_EMBEDDING_MODEL ${id} is not an embedding model of the catalog`);
    const dimensions = config.SEARCH_EMBEDDING_DIMENSIONS ?? model.dimensions;
    if (!dimensions)
      throw new EmbeddingConfigError(`SEARCH_EMBEDDING_DIMENSIONS is required: the catalog does not say how large ${id}'s vectors are`);
    const caller = config.SEARCH_EMBEDDING_API_KEY
      ? await models.keyCaller(config.SEARCH_EMBEDDING_API_KEY)
      : models.serviceCaller('search');
    return gatewayEmbedder({
      model: id,
      dimensions,
      fusionWeight: config.SEARCH_EMBEDDING_FUSION_WEIGHT ?? (model.upstream.provider === 'local' ? 0.03 : 1),
      source: inProcessEmbeddings(models.service, caller, model),
    });
  }
  if (!config.SEARCH_EMBEDDING_API_KEY || !config.SEARCH_EMBEDDING_DIMENSIONS) {
    throw new EmbeddingConfigError(
      'SEARCH_EMBEDDING_API_KEY and SEARCH_EMBEDDING_DIMENSIONS are required when the model gateway runs elsewhere',
    );
  }
  return gatewayEmbedder({
    model: id,
    dimensions: config.SEARCH_EMBEDDING_DIMENSIONS,
    fusionWeight: config.SEARCH_EMBEDDING_FUSION_WEIGHT ?? 1,
    source: restEmbeddings({ baseUrl: config.MODELS_URL ?? config.PUBLIC_URL, apiKey: config.SEARCH_EMBEDDING_API_KEY, model: id }),
  });
}
