import { z } from 'zod';
import type { ModelProvider } from '../../neutral';
import type { Trace } from '../../../shared/telemetry/tracing';
import { unreadable } from '../../../shared/http/failures';
import { chatStreamOf } from '../../upstream/chat-stream';
import { parseAnswer } from '../../upstream/errors';
import type { UpstreamHttp } from '../../upstream/http';
import { openAiChunk, openAiCompletion } from './upstream-answer';
import { chatBody } from './upstream-request';

/**
 * The OpenAI wire (chat completions streamed, embeddings, image generation, transcription), shared
 * by Azure OpenAI and the OpenAI-compatible servers. They differ only in where each operation
 * lives, how the credential is sent, and whether the body names the model.
 */
export type OpenAiOperation = 'chat/completions' | 'embeddings' | 'images/generations' | 'audio/transcriptions';

export interface OpenAiTarget {
  vendor: string;
  url(operation: OpenAiOperation, model: string): string;
  /** The auth headers (read at each call; throws 502 when the credential is missing). */
  auth(): Record<string, string>;
  /** Azure takes the deployment from the URL; the others need `model` in the body. */
  modelInBody: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

const Embeddings = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().optional() })).min(1),
  usage: z.object({ prompt_tokens: z.number() }).nullish(),
});
const Images = z.object({
  data: z.array(z.object({ b64_json: z.string().min(1), revised_prompt: z.string().nullish() })).min(1),
  output_format: z.enum(['png', 'jpeg', 'webp']).nullish(),
});
const Transcription = z.object({
  text: z.string(),
  language: z.string().nullish(),
  duration: z.number().nullish(),
  segments: z.array(z.object({ id: z.number(), start: z.number(), end: z.number(), text: z.string() })).nullish(),
});

export function openAiWire(t: OpenAiTarget, http: UpstreamHttp): Required<ModelProvider> {
  const { vendor } = t;
  const post = (operation: OpenAiOperation, model: string, body: Record<string, unknown>, signal?: AbortSignal, trace?: Trace) => http.request({
    vendor, url: t.url(operation, model), signal, trace,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...t.auth() },
    body: JSON.stringify(t.modelInBody ? { model, ...body } : body),
  });
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

  return {
    async chat(req, signal, trace) {
      const whole = req.stream === false;
      const res = await http.request({
        vendor, url: t.url('chat/completions', req.model), signal, trace,
        headers: { 'content-type': 'application/json', accept: whole ? 'application/json' : 'text/event-stream', ...t.auth() },
        body: JSON.stringify(chatBody(req, vendor, { maxTokensField: t.maxTokensField, model: t.modelInBody ? req.model : undefined })),
      });
      const opts = { vendor, messages: req.messages, promptTokens: req.promptTokens, signal };
      if (whole) return chatStreamOf([await res.json()], { ...opts, decode: (json) => openAiCompletion(json, vendor) });
      // A server that ends with [DONE] but never named a finish reason finished normally.
      let sawDone = false;
      const events = res.events(() => (sawDone = true));
      return chatStreamOf(events, { ...opts, decode: (e) => openAiChunk(e.data, vendor), endedAs: () => (sawDone ? 'stop' : undefined) });
    },

    takesTokenIds: true,

    async embed(req, signal, trace) {
      const input = req.tokenIds ?? req.inputs;
      const res = await post('embeddings', req.model, defined({ input, encoding_format: 'float', dimensions: req.dimensions }), signal, trace);
      const body = parseAnswer(Embeddings, await res.json(), vendor, 'embeddings');
      if (body.data.length !== input.length) throw unreadable(vendor, `${body.data.length} embeddings for ${input.length} inputs`);
      const sorted = body.data.every((d) => d.index !== undefined) ? [...body.data].sort((a, b) => a.index! - b.index!) : body.data;
      return { vectors: sorted.map((d) => Float32Array.from(d.embedding)), promptTokens: body.usage?.prompt_tokens };
    },

    async generateImage(req, signal, trace) {
      const res = await post('images/generations', req.model,
        defined({ prompt: req.prompt, n: 1, size: req.size, quality: req.quality, style: req.style, response_format: 'b64_json' }), signal, trace);
      const body = parseAnswer(Images, await res.json(), vendor, 'image generation');
      const image = body.data[0]!;
      return { b64: image.b64_json, mimeType: `image/${body.output_format ?? 'png'}`, ...(image.revised_prompt ? { revisedPrompt: image.revised_prompt } : {}) };
    },

    async transcribe(req, signal, trace) {
      const form = new FormData();
      form.append('file', new Blob([req.audio], { type: req.mimeType }), req.filename);
      if (t.modelInBody) form.append('model', req.model);
      // verbose_json is the format that brings the segments (and the language and duration) back.
      form.append('response_format', 'verbose_json');
      if (req.temperature !== undefined) form.append('temperature', String(req.temperature));
      if (req.language !== undefined) form.append('language', req.language);
      if (req.prompt !== undefined) form.append('prompt', req.prompt);
      // The transport writes the multipart content type with its boundary.
      const res = await http.request({ vendor, url: t.url('audio/transcriptions', req.model), signal, trace, headers: { accept: 'application/json', ...t.auth() }, body: form });
      const body = parseAnswer(Transcription, await res.json(), vendor, 'transcription');
      return {
        text: body.text,
        ...(body.language ? { language: body.language } : {}),
        ...(body.duration != null ? { duration: body.duration } : {}),
        ...(body.segments ? { segments: body.segments.map(({ id, start, end, text }) => ({ id, start, end, text })) } : {}),
      };
    },
  };
}
