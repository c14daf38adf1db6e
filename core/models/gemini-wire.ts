import { z } from 'zod';
import { BadRequest, ValidationFailed } from '../shared/errors';
import { parseInput } from '../shared/validation';
import type { Attachment, ChatMessage, ChatStream, ChatUsage, FinishReason } from './chat';

/**
 * Gemini's generateContent and embedContent shapes (group B), read into the provider-neutral
 * ChatMessage and written back as GenerateContentResponse objects. Unknown fields are ignored, as
 * are safetySettings (the gateway's guardrails apply instead); what would change the answer and
 * cannot be honoured (tools, several candidates, a part that is neither text nor inlineData) is a
 * 400 naming the field.
 */

/** A 400 in Google's terms: what was wrong, and the fields it was wrong in (`google.rpc.BadRequest`). */
export class InvalidArgument extends BadRequest {
  constructor(readonly fieldViolations: { field: string; description: string }[]) {
    super(fieldViolations.map((v) => `Invalid value at '${v.field}': ${v.description}`).join('; '));
  }
}

/** `contents[0].parts[1].inlineData`, as Google names a field. */
export const fieldPath = (loc: readonly (string | number)[]) =>
  loc.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${p}`)).join('') || 'body';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);
const kindOf = (mimeType: string): Attachment['kind'] | undefined => {
  if (IMAGE_TYPES.has(mimeType)) return 'image';
  if (mimeType === 'application/pdf') return 'Docs';
  return mimeType.startsWith('video/') ? 'Video' : undefined;
};

// Google accepts standard and URL-safe base64.
const InlineData = z.object({
  mimeType: z.string().refine((m) => kindOf(m) !== undefined, 'Unsupported MIME type: send image/png, image/jpeg, image/webp, application/pdf or video/*'),
  data: z.string().regex(/^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/, 'Input should be base64 text'),
});

// Loose, so a part of a kind the gateway cannot take (functionCall, fileData, ...) can be named.
const Part = z.looseObject({ text: z.string().optional(), inlineData: InlineData.optional() }).superRefine((p, ctx) => {
  if ((p.text === undefined) === (p.inlineData === undefined)) {
    const other = Object.keys(p).find((k) => k !== 'text' && k !== 'inlineData' && k !== 'thought' && k !== 'thoughtSignature');
    const message = p.text !== undefined ? 'A part holds text or inlineData, not both'
      : `${other ? `'${other}' parts are not supported: ` : ''}a part needs text or inlineData`;
    ctx.addIssue({ code: 'custom', message });
  }
});

const Content = z.object({ role: z.enum(['user', 'model']).optional(), parts: z.array(Part).min(1) });

/** A plain string stands for one text part, as the SDKs send it. */
const SystemInstruction = z.preprocess((v) => (typeof v === 'string' ? { parts: [{ text: v }] } : v), z.object({ parts: z.array(Part).min(1) }));

export const GenerateContentRequest = z.object({
  contents: z.array(Content).min(1),
  systemInstruction: SystemInstruction.optional(),
  generationConfig: z.object({
    maxOutputTokens: z.int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    topK: z.int().positive().optional(),
    stopSequences: z.array(z.string()).max(5).optional(),
    candidateCount: z.int().optional(),
    responseMimeType: z.string().optional(),
  }).optional(),
  safetySettings: z.array(z.unknown()).optional(),
  tools: z.array(z.unknown()).optional(),
  cachedContent: z.string().optional(),
});
export type GenerateContentRequest = z.output<typeof GenerateContentRequest>;

export const EmbedContentRequest = z.object({
  content: z.object({ parts: z.array(Part).min(1) }),
  model: z.string().optional(),
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.int().positive().optional(),
});
export type EmbedContentRequest = z.output<typeof EmbedContentRequest>;
export const BatchEmbedContentsRequest = z.object({ requests: z.array(EmbedContentRequest).min(1).max(100) });

/** Protobuf's JSON mapping takes `system_instruction` as well as `systemInstruction`: read both. */
function camelKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), camelKeys(x)]));
}

/** The body against a Gemini schema: a 400 naming every bad field. */
export function geminiBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, camelKeys(body ?? {}));
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new InvalidArgument(err.issues.map((i) => ({ field: fieldPath(i.loc), description: i.msg })));
  }
}

type PartOf = z.output<typeof Part>;
const textOf = (parts: readonly PartOf[]) => parts.flatMap((p) => (p.text !== undefined ? [p.text] : [])).join('\n');
const attachmentOf = (p: PartOf): Attachment | undefined => p.inlineData && {
  kind: kindOf(p.inlineData.mimeType)!, mimeType: p.inlineData.mimeType,
  data: p.inlineData.data.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/'),
};

/** Text parts only (system instructions, embedded content): 400 naming the first other part. */
export function textOnly(parts: readonly PartOf[], field: string): string {
  const at = parts.findIndex((p) => p.text === undefined);
  if (at >= 0) throw new InvalidArgument([{ field: `${field}.parts[${at}]`, description: 'Only text parts are accepted here' }]);
  return textOf(parts);
}

/** The request as a chat call's input: the system instruction first, `model` turns as the assistant's. */
export function geminiToChat(body: GenerateContentRequest) {
  const cfg = body.generationConfig ?? {};
  if ((cfg.candidateCount ?? 1) !== 1) throw new InvalidArgument([{ field: 'generationConfig.candidateCount', description: 'Only candidateCount = 1 is supported' }]);
  // A JSON answer (responseMimeType with or without responseSchema) is not something a provider-neutral chat can promise.
  if (cfg.responseMimeType && cfg.responseMimeType !== 'text/plain') {
    throw new InvalidArgument([{ field: 'generationConfig.responseMimeType', description: 'Only text/plain answers are supported by this gateway' }]);
  }
  if (body.tools?.length) throw new InvalidArgument([{ field: 'tools', description: 'Tools (function calling, code execution, search) are not supported by this gateway' }]);
  if (body.cachedContent) throw new InvalidArgument([{ field: 'cachedContent', description: 'Cached content is not supported by this gateway' }]);
  const system = body.systemInstruction ? textOnly(body.systemInstruction.parts, 'systemInstruction') : '';
  const messages: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  for (const c of body.contents) {
    const attachments = c.parts.flatMap((p) => attachmentOf(p) ?? []);
    messages.push({ role: c.role === 'model' ? 'assistant' : 'user', text: textOf(c.parts), ...(attachments.length ? { attachments } : {}) });
  }
  return { messages, maxTokens: cfg.maxOutputTokens, temperature: cfg.temperature, topP: cfg.topP, stop: cfg.stopSequences };
}

// A guardrail cut (content_filter) is Gemini's SAFETY: the answer stopped for policy reasons.
const FINISH: Record<FinishReason, string> = { stop: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY', tool_calls: 'STOP', error: 'OTHER' };

export interface GeminiMeta {
  responseId: string;
  modelVersion: string;
}

const candidate = (text: string, finishReason?: FinishReason) =>
  ({ content: { parts: [{ text }], role: 'model' }, ...(finishReason ? { finishReason: FINISH[finishReason] } : {}), index: 0 });

const usageMetadata = (u: ChatUsage) =>
  ({ promptTokenCount: u.promptTokens, candidatesTokenCount: u.completionTokens, totalTokenCount: u.promptTokens + u.completionTokens });

export const geminiResponse = (meta: GeminiMeta, a: { text: string; finishReason: FinishReason; usage: ChatUsage }) =>
  ({ candidates: [candidate(a.text, a.finishReason)], usageMetadata: usageMetadata(a.usage), ...meta });

/**
 * GenerateContentResponse chunks, one text part each. One piece is held back so that the last
 * carries finishReason and usageMetadata, as Gemini's last chunk does. A failure midway is thrown
 * from the iteration (after the held piece).
 */
export async function* geminiChunks(meta: GeminiMeta, stream: ChatStream): AsyncGenerator<Record<string, unknown>> {
  let held: string | undefined;
  try {
    for await (const text of stream.pieces) {
      if (held !== undefined) yield { candidates: [candidate(held)], ...meta };
      held = text;
    }
  } catch (err) {
    if (held !== undefined) yield { candidates: [candidate(held)], ...meta };
    throw err;
  }
  const { finishReason, usage } = await stream.done;
  yield geminiResponse(meta, { text: held ?? '', finishReason, usage });
}
