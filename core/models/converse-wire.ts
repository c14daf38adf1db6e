import { z } from 'zod';
import type { Attachment, ChatMessage, ChatStream, ChatUsage, FinishReason } from './chat';

/**
 * Bedrock's Converse shapes (group C families 2 and 3, `/model/{id}/converse`, and the Nova native
 * body of `/invoke`), read into the provider-neutral ChatMessage and written back from a ChatStream.
 * `bytes` is base64 text, as the AWS SDKs send blobs in JSON. Unknown fields are ignored, as
 * Bedrock ignores `additionalModelRequestFields` it does not know.
 */
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
export const Base64 = z.string().refine((s) => BASE64.test(s), 'Input should be base64 text');
const Bytes = z.object({ bytes: Base64 });

const IMAGE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;
const DOCUMENT_TYPES = {
  pdf: 'application/pdf', csv: 'text/csv', doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', html: 'text/html', txt: 'text/plain', md: 'text/markdown',
} as const;
const VIDEO_TYPES = {
  mkv: 'video/x-matroska', mov: 'video/quicktime', mp4: 'video/mp4', webm: 'video/webm', flv: 'video/x-flv',
  mpeg: 'video/mpeg', mpg: 'video/mpeg', wmv: 'video/x-ms-wmv', three_gp: 'video/3gpp',
} as const;
const formats = <T extends Record<string, string>>(t: T) => z.enum(Object.keys(t) as [keyof T & string, ...(keyof T & string)[]]);

const ImageBlock = z.object({ format: formats(IMAGE_TYPES), source: Bytes });
const DocumentBlock = z.object({ format: formats(DOCUMENT_TYPES), name: z.string().min(1).max(200), source: Bytes });
const VideoBlock = z.object({ format: formats(VIDEO_TYPES), source: Bytes });
const KINDS = ['text', 'image', 'document', 'video'] as const;

/** One part of a message: exactly one of text, image, document, video (a `cachePoint` marker is accepted and ignored). */
const ContentBlock = z.looseObject({
  text: z.string().optional(),
  image: ImageBlock.optional(),
  document: DocumentBlock.optional(),
  video: VideoBlock.optional(),
}).superRefine((b, ctx) => {
  const keys = Object.keys(b).filter((k) => k !== 'cachePoint');
  const unknown = keys.filter((k) => !(KINDS as readonly string[]).includes(k));
  if (unknown.length) ctx.addIssue({ code: 'custom', message: `Unsupported content block ${unknown.join(', ')}: this gateway takes text, image, document and video blocks` });
  else if (keys.length !== 1 && !(keys.length === 0 && 'cachePoint' in b)) ctx.addIssue({ code: 'custom', message: 'A content block holds exactly one of text, image, document or video' });
});

export const ConverseMessage = z.object({ role: z.enum(['user', 'assistant']), content: z.array(ContentBlock).min(1) });
const SystemBlock = z.looseObject({ text: z.string().optional() });

const InferenceConfig = z.object({
  maxTokens: z.int().positive().optional(),
  temperature: z.number().min(0).max(1).optional(),
  topP: z.number().min(0).max(1).optional(),
  stopSequences: z.array(z.string()).max(4).optional(),
});

export const ConverseRequest = z.object({
  messages: z.array(ConverseMessage).min(1),
  system: z.array(SystemBlock).optional(),
  inferenceConfig: InferenceConfig.optional(),
});
export type ConverseRequest = z.output<typeof ConverseRequest>;

/** Nova's native `/invoke` body: the Converse messages, with its inference names (`max_new_tokens`, `top_p`) or Converse's. */
export const NovaInvokeRequest = ConverseRequest.extend({
  schemaVersion: z.string().optional(),
  inferenceConfig: InferenceConfig.extend({ max_new_tokens: z.int().positive().optional(), top_p: z.number().min(0).max(1).optional(), top_k: z.int().min(0).optional() }).optional(),
});

type Block = z.output<typeof ContentBlock>;

function attachmentOf(b: Block): Attachment | undefined {
  if (b.image) return { kind: 'image', mimeType: IMAGE_TYPES[b.image.format], data: b.image.source.bytes.replace(/\s+/g, '') };
  if (b.document) return { kind: 'Docs', mimeType: DOCUMENT_TYPES[b.document.format], data: b.document.source.bytes.replace(/\s+/g, ''), name: b.document.name };
  if (b.video) return { kind: 'Video', mimeType: VIDEO_TYPES[b.video.format], data: b.video.source.bytes.replace(/\s+/g, '') };
  return undefined;
}

/** The system blocks as one system message, then each message with its text joined and its other parts as attachments. */
export function converseToChat(body: Pick<ConverseRequest, 'messages' | 'system'>): ChatMessage[] {
  const system = (body.system ?? []).flatMap((s) => (s.text === undefined ? [] : [s.text])).join('\n');
  const out: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  for (const m of body.messages) {
    const text = m.content.flatMap((b) => (b.text === undefined ? [] : [b.text])).join('\n');
    const attachments = m.content.flatMap((b) => attachmentOf(b) ?? []);
    out.push({ role: m.role, text, ...(attachments.length ? { attachments } : {}) });
  }
  return out;
}

const STOP: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', content_filter: 'content_filtered', tool_calls: 'tool_use', error: 'end_turn' };
export const converseStopReason = (f: FinishReason) => STOP[f];

export const converseUsage = (u: ChatUsage) => ({ inputTokens: u.promptTokens, outputTokens: u.completionTokens, totalTokens: u.promptTokens + u.completionTokens });

/** Converse's answer: the message, why it stopped, tokens and latency. */
export const converseResponse = (a: { text: string; finishReason: FinishReason; usage: ChatUsage }, latencyMs: number) => ({
  output: { message: { role: 'assistant', content: [{ text: a.text }] } },
  stopReason: converseStopReason(a.finishReason),
  usage: converseUsage(a.usage),
  metrics: { latencyMs },
});

/** One ConverseStream event: its `:event-type` and its payload. */
export interface ConverseEvent {
  event: 'messageStart' | 'contentBlockDelta' | 'contentBlockStop' | 'messageStop' | 'metadata';
  payload: Record<string, unknown>;
}

/**
 * ConverseStream's events for an answer: messageStart, a contentBlockDelta per piece, contentBlockStop,
 * messageStop with the stop reason, metadata with usage and latency. A failure midway is thrown
 * from the iteration (the route writes it as an exception event).
 */
export async function* converseStreamEvents(stream: ChatStream, latencyMs: () => number): AsyncGenerator<ConverseEvent> {
  yield { event: 'messageStart', payload: { role: 'assistant' } };
  for await (const text of stream.pieces) yield { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text } } };
  const { finishReason, usage } = await stream.done;
  yield { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } };
  yield { event: 'messageStop', payload: { stopReason: converseStopReason(finishReason) } };
  yield { event: 'metadata', payload: { usage: converseUsage(usage), metrics: { latencyMs: latencyMs() } } };
}
