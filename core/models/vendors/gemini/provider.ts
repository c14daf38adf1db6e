import { z } from 'zod';
import type { ProviderFactory } from '../types';
import { unreadable } from '../../../shared/http/failures';
import { chatStreamOf } from '../../upstream/chat-stream';
import { parseAnswer } from '../../upstream/errors';
import { credentialOf, trimBase } from '../credentials';
import { generateContentBody, geminiDecoder } from './upstream-request';

export const GEMINI_URL = 'https://generativelanguage.googleapis.com';

const BatchEmbeddings = z.object({ embeddings: z.array(z.object({ values: z.array(z.number()) })) });

/**
 * The Gemini API: `{baseUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse` for a caller
 * that reads the answer as it comes, `:generateContent` for one that reads it whole, and
 * `:batchEmbedContents`, with the key in `x-goog-api-key`.
 */
export const geminiProvider: ProviderFactory = (model, { env, http }) => {
  const vendor = 'Gemini';
  const base = trimBase(model.upstream.baseUrl ?? GEMINI_URL);
  const url = (name: string, method: string) => `${base}/v1beta/models/${encodeURIComponent(name)}:${method}`;
  const headers = (accept: string) => ({ 'content-type': 'application/json', accept, 'x-goog-api-key': credentialOf(model, env, vendor, true)! });

  return {
    async chat(req, signal, trace) {
      const whole = req.stream === false;
      const res = await http.request({
        vendor, url: whole ? url(req.model, 'generateContent') : `${url(req.model, 'streamGenerateContent')}?alt=sse`, signal, trace,
        headers: headers(whole ? 'application/json' : 'text/event-stream'), body: JSON.stringify(generateContentBody(req)),
      });
      const opts = { vendor, messages: req.messages, promptTokens: req.promptTokens, signal };
      const decode = geminiDecoder(vendor);
      if (whole) return chatStreamOf([await res.json()], { ...opts, decode });
      return chatStreamOf(res.events(), { ...opts, decode: (e) => decode(e.data) });
    },

    async embed(req, signal, trace) {
      const requests = req.inputs.map((text) => ({
        model: `models/${req.model}`, content: { parts: [{ text }] }, ...(req.dimensions ? { outputDimensionality: req.dimensions } : {}),
      }));
      const res = await http.request({ vendor, url: url(req.model, 'batchEmbedContents'), signal, trace, headers: headers('application/json'), body: JSON.stringify({ requests }) });
      const body = parseAnswer(BatchEmbeddings, await res.json(), vendor, 'embeddings');
      if (body.embeddings.length !== req.inputs.length) throw unreadable(vendor, `${body.embeddings.length} embeddings for ${req.inputs.length} inputs`);
      return { vectors: body.embeddings.map((e) => Float32Array.from(e.values)) };
    },
  };
};
