import { z } from 'zod';
import { unreadable } from '../../../shared/http/failures';
import { parseAnswer } from '../../upstream/errors';
import type { HttpApi } from '../../upstream/spec';
import { openAiChunk, openAiCompletion } from './upstream-answer';
import { chatBody } from './upstream-request';

/**
 * The OpenAI wire as a provider's data (chat completions streamed, embeddings, image generation,
 * transcription), shared by Azure OpenAI and the OpenAI-compatible servers. They differ only in
 * where each operation lives, how the credential is sent, and whether the body names the model.
 */
export type OpenAiOperation = 'chat/completions' | 'embeddings' | 'images/generations' | 'audio/transcriptions';

export interface OpenAiTarget {
  vendor: string;
  url(operation: OpenAiOperation, model: string): string;
  /** The auth headers (read at each call; throws 502 when the credential is missing). */
  auth(this: void): Record<string, string>;
  /** Azure takes the deployment from the URL; the others need `model` in the body. */
  modelInBody: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/** The answers' wire, as the vendors send them back. */
export const EmbeddingsAnswer = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().optional() })).min(1),
  usage: z.object({ prompt_tokens: z.number() }).nullish(),
});
export const ImagesAnswer = z.object({
  data: z.array(z.object({ b64_json: z.string().min(1), revised_prompt: z.string().nullish() })).min(1),
  output_format: z.enum(['png', 'jpeg', 'webp']).nullish(),
});
export const TranscriptionAnswer = z.object({
  text: z.string(),
  language: z.string().nullish(),
  duration: z.number().nullish(),
  segments: z.array(z.object({ id: z.number(), start: z.number(), end: z.number(), text: z.string() })).nullish(),
});

/** The requests' wire, as the gateway sends them upstream (chat's is upstream-request.ts). */
export interface EmbeddingsBody {
  model?: string;
  input: string[] | (readonly number[])[];
  encoding_format: 'float';
  dimensions?: number;
}
export interface ImagesBody {
  model?: string;
  prompt: string;
  n: 1;
  size?: string;
  quality?: string;
  style?: string;
  response_format: 'b64_json';
}

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export function openAiApi(t: OpenAiTarget): HttpApi {
  const { vendor } = t;
  const named = <T extends object>(model: string, body: T): T & { model?: string } => (t.modelInBody ? { model, ...body } : body);
  return {
    vendor,
    auth: t.auth,
    takesTokenIds: true,
    chat: {
      url: (req) => t.url('chat/completions', req.model),
      body: (req) => chatBody(req, vendor, { maxTokensField: t.maxTokensField, model: t.modelInBody ? req.model : undefined }),
      // A server that ends with [DONE] but never named a finish reason finished normally.
      stream: { framing: 'sse', decoder: () => (json) => openAiChunk(json, vendor), doneMeans: 'stop' },
      whole: () => (json) => openAiCompletion(json, vendor),
    },
    embed: {
      url: (req) => t.url('embeddings', req.model),
      body: (req): EmbeddingsBody =>
        named(req.model, defined({ input: req.tokenIds ?? req.inputs, encoding_format: 'float' as const, dimensions: req.dimensions })),
      answer(json, req) {
        const input = req.tokenIds ?? req.inputs;
        const body = parseAnswer(EmbeddingsAnswer, json, vendor, 'embeddings');
        if (body.data.length !== input.length) throw unreadable(vendor, `${body.data.length} embeddings for ${input.length} inputs`);
        const sorted = body.data.every((d) => d.index !== undefined) ? [...body.data].sort((a, b) => a.index! - b.index!) : body.data;
        return { vectors: sorted.map((d) => Float32Array.from(d.embedding)), promptTokens: body.usage?.prompt_tokens };
      },
    },
    generateImage: {
      url: (req) => t.url('images/generations', req.model),
      body: (req): ImagesBody =>
        named(
          req.model,
          defined({
            prompt: req.prompt,
            n: 1 as const,
            size: req.size,
            quality: req.quality,
            style: req.style,
            response_format: 'b64_json' as const,
          }),
        ),
      answer(json) {
        const body = parseAnswer(ImagesAnswer, json, vendor, 'image generation');
        const image = body.data[0];
        return {
          b64: image.b64_json,
          mimeType: `image/${body.output_format ?? 'png'}`,
          ...(image.revised_prompt ? { revisedPrompt: image.revised_prompt } : {}),
        };
      },
    },
    transcribe: {
      url: (req) => t.url('audio/transcriptions', req.model),
      body(req) {
        const form = new FormData();
        form.append('file', new Blob([req.audio], { type: req.mimeType }), req.filename);
        if (t.modelInBody) form.append('model', req.model);
        // verbose_json is the format that brings the segments (and the language and duration) back.
        form.append('response_format', 'verbose_json');
        if (req.temperature !== undefined) form.append('temperature', String(req.temperature));
        if (req.language !== undefined) form.append('language', req.language);
        if (req.prompt !== undefined) form.append('prompt', req.prompt);
        return form;
      },
      answer(json) {
        const body = parseAnswer(TranscriptionAnswer, json, vendor, 'transcription');
        return {
          text: body.text,
          ...(body.language ? { language: body.language } : {}),
          ...(body.duration != null ? { duration: body.duration } : {}),
          ...(body.segments ? { segments: body.segments.map(({ id, start, end, text }) => ({ id, start, end, text })) } : {}),
        };
      },
    },
  };
}
