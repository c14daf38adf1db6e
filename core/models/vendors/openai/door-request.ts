import { z } from 'zod';
import { BadRequest } from '../../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, ResponseFormat, ToolChoice } from '../../neutral';

/**
 * The OpenAI / Azure OpenAI chat-completions request, as the group A routes and the OpenAI door
 * read it (unknown fields are ignored, as the vendor ignores them), and what it becomes in the
 * provider-neutral chat call: messages (tool calls and tool results included), tools, tool choice
 * and response format. The legacy `functions` / `function_call` (deprecated by OpenAI since 2023)
 * are refused with a 400 naming `tools` / `tool_choice`, rather than answered in a shape no current
 * SDK reads.
 */

/** A 400 naming the request field at fault, as OpenAI's `error.param` does. */
export class InvalidParam extends BadRequest {
  constructor(
    message: string,
    readonly param: string | null,
    code = 'invalid_request_error',
  ) {
    super(message, { code });
  }
}

/** OpenAI's limits: names of 1 to 64 letters, digits, `_` or `-`; 128 tools a request. */
export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOLS = 128;

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const ImagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.string().optional() }) });
/** An assistant's refusal, sent back as part of the history: its text. */
const RefusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() });
const Part = z.discriminatedUnion('type', [TextPart, ImagePart, RefusalPart]);

/** A JSON Schema is an object (`{"type": "object", ...}`), never a string or a list. */
const JsonSchema = z.record(z.string(), z.unknown());

const ToolCallWire = z.object({
  id: z.string().min(1).max(200),
  type: z.literal('function'),
  function: z.object({ name: z.string().regex(NAME_PATTERN), arguments: z.string() }),
});

export const OpenAiMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallWire).max(MAX_TOOLS).nullish(),
  tool_call_id: z.string().min(1).max(200).optional(),
  function_call: z.unknown().optional(),
});
type OpenAiMessage = z.output<typeof OpenAiMessage>;

const FunctionTool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(NAME_PATTERN),
    description: z.string().max(100_000).optional(),
    parameters: JsonSchema.optional(),
    strict: z.boolean().nullish(),
  }),
});

const ToolChoiceWire = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);

const ResponseFormatWire = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(NAME_PATTERN),
      schema: JsonSchema.optional(),
      strict: z.boolean().nullish(),
      description: z.string().optional(),
    }),
  }),
]);

export const ChatCompletionRequest = z.object({
  messages: z.array(OpenAiMessage).min(1),
  model: z.string().optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  n: z.int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(FunctionTool).max(MAX_TOOLS).nullish(),
  tool_choice: ToolChoiceWire.nullish(),
  /** Accepted: a model that calls tools may call several in one turn (local-chat calls one). */
  parallel_tool_calls: z.boolean().nullish(),
  response_format: ResponseFormatWire.nullish(),
  functions: z.unknown().optional(),
  function_call: z.unknown().optional(),
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequest>;

export const textOf = (content: OpenAiMessage['content']) =>
  typeof content === 'string'
    ? content
    : (content ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : p.type === 'refusal' ? [p.refusal] : [])).join('\n');

/** `data:image/png;base64,...` as an attachment; other URLs are refused (the gateway fetches nothing on a caller's behalf). */
export function imageOf(url: string): Attachment {
  const m = /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]*)$/.exec(url);
  if (!m)
    throw new BadRequest('image_url.url must be a data URL with base64 bytes (data:image/png;base64,...).', { code: 'invalid_image_url' });
  return { kind: 'image', mimeType: m[1], data: m[2].replace(/\s+/g, '') };
}

const LEGACY = 'is deprecated and not supported here: use tools and tool_choice (the tool calls come back in message.tool_calls)';

/** An OpenAI message as the provider-neutral one (`developer` is a system message); `i` names it in errors. */
export function toChatMessage(m: OpenAiMessage, i = 0): ChatMessage {
  if (m.role === 'function' || m.function_call !== undefined)
    throw new InvalidParam(`messages[${i}]: the function role and function_call ${LEGACY}.`, `messages.[${i}]`);
  const images = Array.isArray(m.content) ? m.content.flatMap((p) => (p.type === 'image_url' ? [imageOf(p.image_url.url)] : [])) : [];
  const message: ChatMessage = {
    role: m.role === 'developer' ? 'system' : m.role,
    text: textOf(m.content),
    ...(images.length ? { attachments: images } : {}),
  };
  if (m.role === 'tool') {
    if (!m.tool_call_id)
      throw new InvalidParam(
        `Missing parameter 'tool_call_id': messages with role 'tool' must answer a tool call.`,
        `messages.[${i}].tool_call_id`,
      );
    return { ...message, toolCallId: m.tool_call_id };
  }
  if (m.tool_calls?.length) {
    if (m.role !== 'assistant')
      throw new InvalidParam(`messages[${i}]: only assistant messages carry tool_calls.`, `messages.[${i}].tool_calls`);
    return { ...message, toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) };
  }
  return message;
}

/** Every message, checked as OpenAI checks them: a tool result answers a call an earlier assistant message made. */
export function toChatMessages(messages: readonly OpenAiMessage[]): ChatMessage[] {
  const calls = new Map<string, string>();
  return messages.map((wire, i) => {
    const m = toChatMessage(wire, i);
    for (const c of m.toolCalls ?? []) calls.set(c.id, c.name);
    if (m.role !== 'tool') return m;
    const name = calls.get(m.toolCallId!);
    if (!name)
      throw new InvalidParam(
        `messages[${i}]: a message with role 'tool' must answer a tool call of a preceding assistant message (no call has id ${JSON.stringify(m.toolCallId)}).`,
        `messages.[${i}].tool_call_id`,
      );
    return { ...m, toolName: name };
  });
}

type Tools = Pick<ChatRequest, 'tools' | 'toolChoice' | 'responseFormat'>;

/** The request's tools, tool choice and response format in neutral terms: 400 naming the field for what OpenAI refuses. */
export function toolsOf(body: ChatCompletionRequest): Tools {
  if (body.functions !== undefined) throw new InvalidParam(`'functions' ${LEGACY}.`, 'functions');
  if (body.function_call !== undefined) throw new InvalidParam(`'function_call' ${LEGACY}.`, 'function_call');
  const tools = (body.tools ?? []).map(({ function: f }) => ({
    name: f.name,
    ...(f.description !== undefined && { description: f.description }),
    ...(f.parameters && { parameters: f.parameters }),
    ...(f.strict != null && { strict: f.strict }),
  }));
  const names = new Set<string>();
  tools.forEach((t, i) => {
    if (names.has(t.name))
      throw new InvalidParam(`Tool names must be unique: ${JSON.stringify(t.name)} is given twice.`, `tools.[${i}].function.name`);
    names.add(t.name);
  });
  return { ...(tools.length && { tools }), ...choiceOf(body.tool_choice, names), ...formatOf(body.response_format) };
}

function choiceOf(choice: ChatCompletionRequest['tool_choice'], names: Set<string>): { toolChoice?: ToolChoice } {
  if (choice == null) return {};
  if (choice === 'auto' || choice === 'none') return { toolChoice: { type: choice } };
  if (!names.size)
    throw new InvalidParam("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  if (choice === 'required') return { toolChoice: { type: 'required' } };
  if (!names.has(choice.function.name))
    throw new InvalidParam(
      `Invalid value for 'tool_choice': no function named ${JSON.stringify(choice.function.name)} was specified in 'tools'.`,
      'tool_choice',
    );
  return { toolChoice: { type: 'tool', name: choice.function.name } };
}

function formatOf(format: ChatCompletionRequest['response_format']): { responseFormat?: ResponseFormat } {
  if (!format) return {};
  if (format.type !== 'json_schema') return { responseFormat: { type: format.type } };
  const { name, schema, strict, description } = format.json_schema;
  return {
    responseFormat: {
      type: 'json_schema',
      name,
      schema: schema ?? {},
      ...(description !== undefined && { description }),
      ...(strict != null && { strict }),
    },
  };
}
