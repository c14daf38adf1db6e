import type { CatalogModel } from '../../catalog/catalog';
import { unreadable } from '../../../shared/http/failures';
import { parseAnswer } from '../../upstream/errors';
import { httpProvider } from '../../upstream/http-provider';
import type { Env, HttpApi } from '../../upstream/spec';
import { credentialOf, trimBase } from '../credentials';
import { geminiDecoder } from './upstream-answer';
import { generateContentBody } from './upstream-request';
import { BatchEmbedContentsResponse, type BatchEmbedContentsBody } from './wire';

export const GEMINI_URL = 'https://generativelanguage.googleapis.com';

/**
 * The Gemini API as data: `{baseUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse` for a
 * caller that reads the answer as it comes (server-sent events), `:generateContent` for one that
 * reads it whole, and `:batchEmbedContents`, with the key in `x-goog-api-key`.
 */
export function geminiApi(model: CatalogModel, env: Env): HttpApi {
  const vendor = 'Gemini';
  const base = trimBase(model.upstream.baseUrl ?? GEMINI_URL);
  const url = (name: string, method: string) => `${base}/v1beta/models/${encodeURIComponent(name)}:${method}`;
  return {
    vendor,
    auth: () => ({ 'x-goog-api-key': credentialOf(model, env, vendor, true)! }),
    chat: {
      url: (req, stream) => (stream ? `${url(req.model, 'streamGenerateContent')}?alt=sse` : url(req.model, 'generateContent')),
      body: generateContentBody,
      stream: { framing: 'sse', decoder: () => geminiDecoder(vendor) },
      whole: () => geminiDecoder(vendor),
    },
    embed: {
      url: (req) => url(req.model, 'batchEmbedContents'),
      body: (req): BatchEmbedContentsBody => ({
        requests: req.inputs.map((text) => ({
          model: `models/${req.model}`,
          content: { parts: [{ text }] },
          ...(req.dimensions ? { outputDimensionality: req.dimensions } : {}),
        })),
      }),
      answer(json, req) {
        const body = parseAnswer(BatchEmbedContentsResponse, json, vendor, 'embeddings');
        if (body.embeddings.length !== req.inputs.length)
          throw unreadable(vendor, `${body.embeddings.length} embeddings for ${req.inputs.length} inputs`);
        return { vectors: body.embeddings.map((e) => Float32Array.from(e.values)) };
      },
    },
  };
}

export const geminiProvider = httpProvider(geminiApi);
