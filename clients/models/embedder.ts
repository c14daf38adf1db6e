import type { CatalogModel } from '../../core/models/catalog';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import type { Embedder } from '../../core/shared/text/embedder';
import { BadRequest } from '../../core/shared/errors';
import { httpClient } from '../shared/http';

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
        throw new BadRequest(`The embedding model ${opts.model} makes ${wrong.length}-dimensional vectors; search expects ${opts.dimensions} (SEARCH_EMBEDDING_DIMENSIONS).`,
          { code: 'embedding_dimensions' });
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
        query: { 'api-version': '2024-10-21' }, json: { input: inputs }, headers: { 'api-key': opts.apiKey },
      });
      return [...r.data].sort((a, b) => a.index - b.index).map((d) => Float32Array.from(d.embedding));
    },
  };
}
