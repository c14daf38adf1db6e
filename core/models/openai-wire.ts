import { z } from 'zod';

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
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequest>;

export const textOf = (content: z.output<typeof OpenAiMessage>['content']) =>
  (typeof content === 'string' ? content : (content ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'));

export const hasImages = (req: ChatCompletionRequest) =>
  req.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'));
