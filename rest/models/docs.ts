import { z } from 'zod';
import type { OperationDocs, ServiceDocs } from '../shared/routes';
import type { ResponseSpec } from '../shared/routes';

/**
 * What the gateway's OpenAPI document says that its routes' schemas cannot: the `api-key` scheme,
 * the gateway's own answers, the failures every route shares (each in its wire format's error
 * body), and the examples Try it out starts from (the built-in offline models).
 */
export const modelsServiceDocs: ServiceDocs = {
  description:
    "One access point to the catalog's models in their vendors' wire formats. Every call needs an LM key: " +
    '**Authorize** with it (`api-key` header). Options follow the key after a slash, e.g. `<key>/{"is_cache": 0, "use_guard": 2}`; ' +
    '`{"semantic_cache": 0.95}` also answers a near-identical question from the cache (`x-cache: HIT`, `x-cache-similarity`). ' +
    "The vendors' SDK headers work too: `Authorization: Bearer <key>` (OpenAI's layout, group A, the catalog and usage; group C), `x-goog-api-key` or `?key=` (Gemini), `x-api-key` (group C). " +
    "OpenAI's SDK works with this prefix as its base URL (`/chat/completions`, `/embeddings`, `/images/generations`, `/audio/transcriptions`, `/models`). " +
    'Built in, offline: `local-chat` (chat), `local-embed` (embeddings), `local-image` (images).',
  securitySchemes: {
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'api-key',
      description:
        'An LM key from an LM administrator (`npm run -s platform -- key create`; the first start makes one, shown by `npm run -s platform -- credentials`), optionally followed by `/` and options.',
    },
  },
  security: [{ apiKey: [] }],
};

/** The gateway's own paths (`/models`, `/usage`) answer errors as OpenAI does (the catalog's also with `type` and `param`). */
export const GatewayError = z.object({
  error: z.object({ code: z.string(), message: z.string(), type: z.string().optional(), param: z.string().nullable().optional() }),
});

const Price = z.object({ input_per_million_tokens: z.number(), output_per_million_tokens: z.number() });
export const CatalogModel = z.object({
  id: z.string(),
  object: z.literal('model'),
  owned_by: z.string().describe('The upstream provider'),
  group: z.enum(['A', 'B', 'C', 'embedding']),
  kind: z.enum(['chat', 'embedding', 'image', 'transcription']),
  status: z.string().describe('`Active`, or the label of a deactivated model'),
  context_length: z.int(),
  dimensions: z.int().nullable(),
  max_output_tokens: z.int().nullable(),
  input_kinds: z.array(z.string()),
  price: Price,
});
export const ModelList = z.object({ object: z.literal('list'), data: z.array(CatalogModel) });

const Totals = z.object({
  requests: z.int(),
  tokens_in: z.int(),
  tokens_out: z.int(),
  words_sent: z.int(),
  words_received: z.int(),
  cache_hits: z.int(),
  errors: z.int(),
  cost: z.number(),
});
export const Usage = z.object({
  object: z.literal('usage'),
  tenant_id: z.string(),
  from: z.string(),
  to: z.string(),
  totals: Totals,
  by_model: z.array(Totals.extend({ model: z.string() })),
});

/** Every model call's failures, each in its route's error body. */
export function failures(schema: z.ZodType): Record<number, ResponseSpec> {
  const r = (description: string) => ({ description, schema });
  return {
    400: r('A malformed body, a bad option in the key, an input the model does not take, or a guardrail refusal (`guardrail_violation`)'),
    401: r('No key, or an unknown or revoked key'),
    403: r('The key may not use this model'),
    404: r('Unknown or deactivated model'),
    413: r('Request body too large'),
    429: r("The key's rate or token budget is spent (`Retry-After` says when to retry)"),
    502: r('The model failed'),
    504: r('The model did not answer in time'),
  };
}

export const modelsDocs: Record<'models' | 'model' | 'usage', OperationDocs> = {
  models: {
    responses: {
      200: { description: 'The models this key may use', schema: ModelList },
      401: { description: 'No key, unknown or revoked key', schema: GatewayError },
      400: { description: 'A bad option in the key', schema: GatewayError },
    },
  },
  model: {
    params: { id: { description: 'A model of the catalog (its id)', example: 'local-chat' } },
    responses: {
      200: { description: 'The model', schema: CatalogModel },
      401: { description: 'No key, unknown or revoked key', schema: GatewayError },
      403: { description: 'The key may not use this model', schema: GatewayError },
      404: { description: 'Unknown or deactivated model', schema: GatewayError },
    },
  },
  usage: {
    params: { from: { example: '2026-01-01' } },
    responses: {
      200: { description: 'Usage totals', schema: Usage },
      401: { description: 'No key, unknown or revoked key', schema: GatewayError },
    },
  },
};

/** The system text the offline model answers from, and a question about it. */
export const CONTEXT = 'Glaciers retreat as the climate warms.';
export const QUESTION = 'Why do glaciers retreat?';

/** A path parameter naming a catalog model, with an offline model as its example. */
export const modelParam = (example: string, name = 'model') => ({ [name]: { description: 'A model of the catalog (its id)', example } });

export const modelsSchemas = { GatewayError, CatalogModel, ModelList, Usage };
