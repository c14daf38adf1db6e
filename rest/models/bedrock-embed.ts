import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { z } from 'zod';
import type { Ctx } from '../../core/shared/context';
import { BadRequest } from '../../core/shared/errors';
import { isPlainObject } from '../../core/shared/validation';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import { wireBody } from './bedrock-common';

/**
 * InvokeModel for an embedding model of the catalog, in the bodies Bedrock's embedding models take:
 * Titan's `{"inputText", "dimensions", "normalize", "embeddingTypes"}` answered `{"embedding",
 * "inputTextTokenCount"}` (and `embeddingsByType` when types were asked), and Cohere's `{"texts",
 * "input_type"}` answered `{"embeddings", "id", "response_type", "texts"}`. Told apart by their
 * fields; the vectors are the gateway's (ModelsService.embed, metered as any embedding call).
 */
export const TitanEmbedRequest = z.object({
  inputText: z.string().min(1),
  dimensions: z.int().positive().optional(),
  normalize: z.boolean().optional(),
  embeddingTypes: z
    .array(z.enum(['float', 'binary']))
    .min(1)
    .max(2)
    .optional(),
});

export const CohereEmbedRequest = z.object({
  texts: z.array(z.string().min(1)).min(1).max(96),
  input_type: z.enum(['search_document', 'search_query', 'classification', 'clustering']),
  truncate: z.enum(['NONE', 'START', 'END']).optional(),
  embedding_types: z.array(z.literal('float')).min(1).optional(),
});

function unit(v: Float32Array): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  return Array.from(v, (x) => x / norm);
}

/** Writes an InvokeModel answer as Bedrock does: JSON without a charset (express's res.json would add one), the token counts and latency in headers. */
export function invokeAnswer(res: Response, body: unknown, h: { inputTokens: number; outputTokens: number; started: number }) {
  res.status(200).setHeader('Content-Type', 'application/json');
  res
    .set({
      'x-amzn-bedrock-input-token-count': String(h.inputTokens),
      'x-amzn-bedrock-output-token-count': String(h.outputTokens),
      'x-amzn-bedrock-invocation-latency': String(Date.now() - h.started),
    })
    .end(JSON.stringify(body));
}

export async function invokeEmbedding(models: ModelsService, m: Metered, body: unknown, res: Response, ctx: Ctx<KeyCaller>): Promise<void> {
  const started = Date.now();
  let call!: { titan?: z.output<typeof TitanEmbedRequest>; cohere?: z.output<typeof CohereEmbedRequest> };
  const { vectors, promptTokens } = await models.embed(
    {
      ...m,
      read: () => {
        if (isPlainObject(body) && 'inputText' in body) call = { titan: wireBody(TitanEmbedRequest, body) };
        else if (isPlainObject(body) && 'texts' in body) call = { cohere: wireBody(CohereEmbedRequest, body) };
        else
          throw new BadRequest(
            `${m.model.id} is an embedding model: send a Titan body (inputText, dimensions, normalize) or a Cohere body (texts, input_type)`,
            { code: 'invalid_request' },
          );
        return call.titan ? { inputs: [call.titan.inputText], dimensions: call.titan.dimensions } : { inputs: call.cohere!.texts };
      },
    },
    ctx,
  );
  if (call.titan) {
    const t = call.titan;
    const v = vectors[0];
    if (t.dimensions !== undefined && t.dimensions !== v.length)
      throw new BadRequest(`dimensions: this model makes ${v.length}-dimensional vectors`, { code: 'invalid_request' });
    // Titan's default: a unit vector.
    const embedding = t.normalize === false ? Array.from(v) : unit(v);
    const byType = t.embeddingTypes && {
      embeddingsByType: Object.fromEntries(
        t.embeddingTypes.map((type) => [type, type === 'float' ? embedding : embedding.map((x) => (x > 0 ? 1 : 0))]),
      ),
    };
    return invokeAnswer(
      res,
      { embedding, inputTextTokenCount: promptTokens, ...byType },
      { inputTokens: promptTokens, outputTokens: 0, started },
    );
  }
  const c = call.cohere!;
  const embeddings = vectors.map((v) => Array.from(v));
  const answer = c.embedding_types
    ? { id: randomUUID(), response_type: 'embeddings_by_type', embeddings: { float: embeddings }, texts: c.texts }
    : { id: randomUUID(), response_type: 'embeddings_floats', embeddings, texts: c.texts };
  return invokeAnswer(res, answer, { inputTokens: promptTokens, outputTokens: 0, started });
}
