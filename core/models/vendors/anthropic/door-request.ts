import { z } from 'zod';
import type { Attachment, ChatMessage, ChatRequest, ToolChoice, ToolDefinition } from '../../neutral';
import { inputOf } from './door-answer';
import { Base64 } from '../bedrock/door-request';

/**
 * Anthropic's Messages API requests (its own API at `/anthropic/v1/messages`, group C family 1, and
 * the Anthropic body of Bedrock's `/invoke`), read into the provider-neutral ChatMessage: text,
 * image and document blocks, `tool_use` blocks of the assistant's turns (its tool calls) and
 * `tool_result` blocks of the user's (one `tool` message each, before the turn's other blocks).
 * Unknown fields are ignored; an unknown content block type, or a tool block in the wrong role's
 * turn, is a 400 naming the block. The answer side is anthropic-answer.ts.
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
/** Anthropic's tool names (`^[a-zA-Z0-9_-]{1,128}$`). */
const ToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/);
const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1).max(256),
  name: ToolName,
  input: z.record(z.string(), z.unknown()),
});
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1).max(256),
  content: z
    .preprocess(
      (v) => (typeof v === 'string' ? [{ type: 'text', text: v }] : v),
      z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock])),
    )
    .optional(),
  is_error: z.boolean().optional(),
});
const Block = z.discriminatedUnion('type', [TextBlock, ImageBlock, DocumentBlock, ToolUseBlock, ToolResultBlock]);
type Block = z.output<typeof Block>;

/** A string stands for one text block, as Anthropic reads it. */
const asBlocks = <S extends z.ZodType>(blocks: S) => z.preprocess((v) => (typeof v === 'string' ? [{ type: 'text', text: v }] : v), blocks);

const Message = z.object({ role: z.enum(['user', 'assistant']), content: asBlocks(z.array(Block).min(1)) }).superRefine((m, ctx) => {
  const wrong = m.role === 'user' ? 'tool_use' : 'tool_result';
  m.content.forEach((b, i) => {
    if (b.type === wrong)
      ctx.addIssue({
        code: 'custom',
        path: ['content', i],
        message: `${wrong} blocks belong to ${m.role === 'user' ? 'assistant' : 'user'} messages`,
      });
  });
});

const Tool = z.object({
  // Client tools only: a server tool (`web_search_20250305`, `bash_...`) names a type of its own.
  type: z.literal('custom').nullable().optional(),
  name: ToolName,
  description: z.string().max(100_000).optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  strict: z.boolean().optional(),
});
const ToolChoiceWire = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto') }),
  z.object({ type: z.literal('any') }),
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('tool'), name: ToolName }),
]);

/** What a Messages request and a token count share: the prompt and the tools. */
const Prompt = z.object({
  messages: z.array(Message).min(1),
  system: asBlocks(z.array(TextBlock)).optional(),
  tools: z.array(Tool).max(256).optional(),
  tool_choice: ToolChoiceWire.optional(),
});

const refineToolChoice = (b: z.output<typeof Prompt>, ctx: z.RefinementCtx) => {
  const c = b.tool_choice;
  if (c?.type === 'tool' && !b.tools?.some((t) => t.name === c.name))
    ctx.addIssue({ code: 'custom', path: ['tool_choice', 'name'], message: `No tool named ${c.name} in tools` });
};

const Sampling = Prompt.extend({
  max_tokens: z.int().positive(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.int().min(0).optional(),
  stop_sequences: z.array(z.string()).max(16).optional(),
  stream: z.boolean().optional(),
  metadata: z.object({ user_id: z.string().max(256).nullable().optional() }).optional(),
});

/** The model names itself (`?modelId=` or the path on Bedrock): the body carries `anthropic_version` instead. */
export const AnthropicRequest = Sampling.extend({ anthropic_version: z.string().min(1) }).superRefine(refineToolChoice);
export type AnthropicRequest = z.output<typeof AnthropicRequest>;

/** Anthropic's own API: the model in the body (a catalog id), the version in the `anthropic-version` header. */
export const MessagesRequest = Sampling.extend({ model: z.string().min(1).max(200) }).superRefine(refineToolChoice);
export type MessagesRequest = z.output<typeof MessagesRequest>;

/** `POST /v1/messages/count_tokens`. */
export const CountTokensRequest = Prompt.extend({ model: z.string().min(1).max(200) }).superRefine(refineToolChoice);

function attachmentOf(b: Block): Attachment | undefined {
  if (b.type === 'image') return { kind: 'image', mimeType: b.source.media_type, data: b.source.data.replace(/\s+/g, '') };
  if (b.type === 'document')
    return { kind: 'Docs', mimeType: b.source.media_type, data: b.source.data.replace(/\s+/g, ''), ...(b.title ? { name: b.title } : {}) };
  return undefined;
}

const textOf = (blocks: readonly Block[]) => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

/** A tool result as a `tool` message; one that failed says so in its text (the neutral message has no flag for it). */
function toolMessage(b: z.output<typeof ToolResultBlock>): ChatMessage {
  const blocks = b.content ?? [];
  const text = textOf(blocks);
  const attachments = blocks.flatMap((x) => attachmentOf(x) ?? []);
  return {
    role: 'tool',
    toolCallId: b.tool_use_id,
    text: b.is_error ? `Error: ${text}` : text,
    ...(attachments.length ? { attachments } : {}),
  };
}

/**
 * The system prompt as a system message, then each message: a user turn's tool results first, as
 * `tool` messages, then its text and attachments; an assistant turn's text with its tool calls.
 */
export function anthropicToChat(body: Pick<AnthropicRequest, 'system' | 'messages'>): ChatMessage[] {
  const system = (body.system ?? []).map((b) => b.text).join('\n');
  const out: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  for (const m of body.messages) {
    for (const b of m.content) if (b.type === 'tool_result') out.push(toolMessage(b));
    const text = textOf(m.content);
    const attachments = m.content.flatMap((b) => attachmentOf(b) ?? []);
    const toolCalls = m.content.flatMap((b) =>
      b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input) }] : [],
    );
    if (!text && !attachments.length && !toolCalls.length && m.content.some((b) => b.type === 'tool_result')) continue;
    out.push({ role: m.role, text, ...(attachments.length ? { attachments } : {}), ...(toolCalls.length ? { toolCalls } : {}) });
  }
  return out;
}

const CHOICES = { auto: 'auto', any: 'required', none: 'none' } as const;

/** The tools and tool choice of a request, in neutral terms (Anthropic's `any` is `required`). */
export function anthropicTools(body: Pick<AnthropicRequest, 'tools' | 'tool_choice'>): {
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
} {
  const tools = body.tools?.map((t) => ({
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    parameters: t.input_schema,
    ...(t.strict !== undefined && { strict: t.strict }),
  }));
  const c = body.tool_choice;
  const toolChoice: ToolChoice | undefined = !c
    ? undefined
    : c.type === 'tool'
      ? { type: 'tool', name: c.name }
      : { type: CHOICES[c.type] };
  return { ...(tools?.length ? { tools } : {}), ...(toolChoice ? { toolChoice } : {}) };
}

/** The neutral chat call a Messages body stands for (top_k and metadata are accepted and not passed on). */
export const anthropicChat = (b: AnthropicRequest | MessagesRequest): Omit<ChatRequest, 'model'> => ({
  messages: anthropicToChat(b),
  maxTokens: b.max_tokens,
  temperature: b.temperature,
  topP: b.top_p,
  stop: b.stop_sequences,
  ...anthropicTools(b),
});

/** The counted part of a prompt: the messages and the tools' definitions. */
export const anthropicPrompt = (b: Pick<AnthropicRequest, 'system' | 'messages' | 'tools' | 'tool_choice'>) => ({
  messages: anthropicToChat(b),
  tools: anthropicTools(b).tools,
});

/**
 * A neutral prompt as a count_tokens body (the gateway's REST client counts through it): one
 * Anthropic message per neutral one, a tool result as a user turn holding its `tool_result`.
 */
export function anthropicCountBody(model: string, messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]) {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.text)
    .join('\n');
  const turns = messages
    .filter((m) => m.role !== 'system')
    .map((m) => {
      if (m.role === 'tool')
        return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.toolCallId ?? 'unknown', content: m.text }] };
      const calls = (m.toolCalls ?? []).map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: inputOf(c.arguments) }));
      return { role: m.role, content: [...(m.text || !calls.length ? [{ type: 'text', text: m.text }] : []), ...calls] };
    });
  return {
    model,
    messages: turns,
    ...(system && { system }),
    ...(tools?.length && {
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters ?? { type: 'object', properties: {} },
      })),
    }),
  };
}
