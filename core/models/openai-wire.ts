import { z } from 'zod';
import { BadRequest } from '../shared/errors';
import type { Attachment, ChatMessage } from './chat';

/**
 * The OpenAI / Azure OpenAI chat-completions request, as the group A route reads it (unknown fields
 * are ignored, as the vendor ignores them).
 */
const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const ImagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.string().optional() }) });
const Part = z.discriminatedUnion('type', [TextPart, ImagePart]);

export const OpenAiMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
});

export const ChatCompletionRequest = z.object({
  messages: z.array(OpenAiMessage).min(1),
  model: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.int().positive().optional(),
  max_completion_tokens: z.int().positive().optional(),
  n: z.int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequest>;

export const textOf = (content: z.output<typeof OpenAiMessage>['content']) =>
  (typeof content === 'string' ? content : (content ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'));

/** `data:image/png;base64,...` as an attachment; other URLs are refused (the gateway fetches nothing on a caller's behalf). */
export function imageOf(url: string): Attachment {
  const m = /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]*)$/.exec(url);
  if (!m) throw new BadRequest('image_url.url must be a data URL with base64 bytes (data:image/png;base64,...).', { code: 'invalid_image_url' });
  return { kind: 'image', mimeType: m[1]!, data: m[2]!.replace(/\s+/g, '') };
}

/** An OpenAI message as the provider-neutral one (`developer` is a system message). */
export function toChatMessage(m: z.output<typeof OpenAiMessage>): ChatMessage {
  const images = Array.isArray(m.content) ? m.content.flatMap((p) => (p.type === 'image_url' ? [imageOf(p.image_url.url)] : [])) : [];
  return { role: m.role === 'developer' ? 'system' : m.role, text: textOf(m.content), ...(images.length ? { attachments: images } : {}) };
}
