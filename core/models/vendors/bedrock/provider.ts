import type { CatalogModel } from '../../catalog/catalog';
import { bedrockRuntimeProvider, type BedrockRuntimeApi } from '../../upstream/aws-sdk';
import { parseAnswer } from '../../upstream/errors';
import type { Env } from '../../upstream/spec';
import { credentialOf } from '../credentials';
import { converseEvents, TitanEmbedding, type TitanEmbeddingBody } from './upstream-answer';
import { converseInput } from './upstream-request';

/** Embedding calls in flight at once: Titan takes one text per call. */
const EMBED_CONCURRENCY = 4;

/**
 * Amazon Bedrock as data, called through the AWS SDK (upstream/aws-sdk.ts): chat with
 * ConverseStream, embeddings with InvokeModel and a Titan body, one call per text. The region is the
 * catalog's (`us-east-1` by default), the endpoint its baseUrl when set. The credential variable
 * holds `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (`:SESSION_TOKEN` optional); without one the SDK's
 * default chain is used.
 */
export function bedrockApi(model: CatalogModel, env: Env): BedrockRuntimeApi {
  const vendor = 'Bedrock';
  return {
    vendor,
    region: model.upstream.region ?? 'us-east-1',
    ...(model.upstream.baseUrl ? { endpoint: model.upstream.baseUrl } : {}),
    credential: () => credentialOf(model, env, vendor, false),
    chat: { input: converseInput, events: converseEvents },
    embed: {
      body: (inputText, req): TitanEmbeddingBody => ({ inputText, ...(req.dimensions ? { dimensions: req.dimensions } : {}) }),
      answer: (json) => {
        const r = parseAnswer(TitanEmbedding, json, vendor, 'embedding');
        return { vector: r.embedding, ...(r.inputTextTokenCount !== undefined ? { tokens: r.inputTextTokenCount } : {}) };
      },
      concurrency: EMBED_CONCURRENCY,
    },
  };
}

export const bedrockProvider = bedrockRuntimeProvider(bedrockApi);
