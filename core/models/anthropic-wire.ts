import { z } from 'zod';
import type { Attachment, ChatMessage, ChatStream, ChatUsage, FinishReason } from './chat';
import { Base64 } from './converse-wire';

/**
 * Anthropic's Messages API shapes (group C family 1, and the Anthropic body of Bedrock's `/invoke`),
 * read into the provider-neutral ChatMessage and written back as Anthropic's message object and
 * stream events. Unknown fields are ignored; unknown content block types are a 400 naming the block.
 */
const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ImageBlock = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('base64'), media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']), data: Base64 }),
});
const DocumentBlock = z.object({
  type: z.literal('document'),
  source: z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: Base64 }),
  title: z.string().max(500).nullable().optional(),
});
const Block = z.discriminatedUnion('type', [TextBlock, ImageBlock, DocumentBlock]);

/** A string stands for one text block, as Anthropic reads it. */
const asBlocks = <S extends z.ZodType>(blocks: S) => z.preprocess((v) => (typeof v === 'string' ? [{ type: 'text', text: v }] : v), blocks);

export const AnthropicRequest = z.object({
  anthropic_version: z.string().min(1),
  max_tokens: z.int().positive(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: asBlocks(z.array(Block).min(1)) })).min(1),
  system: asBlocks(z.array(TextBlock)).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.int().min(0).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
});
export type AnthropicRequest = z.output<typeof AnthropicRequest>;

function attachmentOf(b: z.output<typeof Block>): Attachment | undefined {
  if (b.type === 'image') return { kind: 'image', mimeType: b.source.media_type, data: b.source.data.replace(/\s+/g, '') };
  if (b.type === 'document') return { kind: 'Docs', mimeType: b.source.media_type, data: b.source.data.replace(/\s+/g, ''), ...(b.title ? { name: b.title } : {}) };
  return undefined;
}

/** The system prompt as a system message, then each message with its text joined and its images and documents as attachments. */
export function anthropicToChat(body: AnthropicRequest): ChatMessage[] {
  const system = (body.system ?? []).map((b) => b.text).join('\n');
  const out: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  for (const m of body.messages) {
    const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    const attachments = m.content.flatMap((b) => attachmentOf(b) ?? []);
    out.push({ role: m.role, text, ...(attachments.length ? { attachments } : {}) });
  }
  return out;
}

// A guardrail cut (content_filter) is Anthropic's `refusal`: the answer stopped for policy reasons.
const STOP: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', content_filter: 'refusal', tool_calls: 'tool_use', error: 'end_turn' };
export const anthropicStopReason = (f: FinishReason) => STOP[f];

export interface AnthropicMeta {
  /** `msg_...` */
  id: string;
  model: string;
}

export const anthropicMessage = (meta: AnthropicMeta, a: { text: string; finishReason: FinishReason; usage: ChatUsage }) => ({
  id: meta.id, type: 'message', role: 'assistant', model: meta.model,
  content: [{ type: 'text', text: a.text }],
  stop_reason: anthropicStopReason(a.finishReason), stop_sequence: null,
  usage: { input_tokens: a.usage.promptTokens, output_tokens: a.usage.completionTokens },
});

export type AnthropicEvent = { type: string } & Record<string, unknown>;

/**
 * Anthropic's stream events for an answer. The prompt's token count is known only once the answer
 * has ended, so message_start says 0 and message_delta carries both counts (the Anthropic SDKs take
 * `input_tokens` from it). A failure midway is thrown from the iteration.
 */
export async function* anthropicStreamEvents(meta: AnthropicMeta, stream: ChatStream): AsyncGenerator<AnthropicEvent> {
  yield {
    type: 'message_start',
    message: { id: meta.id, type: 'message', role: 'assistant', model: meta.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
  };
  yield { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
  for await (const text of stream.pieces) yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } };
  const { finishReason, usage } = await stream.done;
  yield { type: 'content_block_stop', index: 0 };
  yield {
    type: 'message_delta', delta: { stop_reason: anthropicStopReason(finishReason), stop_sequence: null },
    usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
  };
  yield { type: 'message_stop' };
}

/** Anthropic's error types by HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400: case 405: case 415: case 422: return 'invalid_request_error';
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 503: case 529: return 'overloaded_error';
    default: return 'api_error';
  }
}
