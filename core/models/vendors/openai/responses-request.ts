import { z } from 'zod';
import { BadRequest } from '../../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../neutral';
import { imageOf } from './door-request';

/**
 * OpenAI's Responses API request (`POST /responses`), as the gateway reads it into the
 * provider-neutral chat call. Unknown fields are ignored, as OpenAI ignores fields it does not use.
 * `item_reference` items (and message or function call items carrying only an `id`) and
 * `previous_response_id` name stored responses: stored-responses.ts resolves them before the call.
 */
const InputText = z.object({ type: z.enum(['input_text', 'output_text']), text: z.string() });
const InputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const Refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const Part = z.discriminatedUnion('type', [InputText, InputImage, Refusal]);
/**
 * A string stands for one text part (and `input` for one user message), read as such before the
 * check, so that a bad field is named in the error rather than hidden in a union's.
 */
const asParts = (v: unknown) => (typeof v === 'string' ? [{ type: 'input_text', text: v }] : v);
const Content = z.preprocess(asParts, z.array(Part).max(1000));

const Id = z.string().min(1).max(256);
const MessageItem = z.object({
  type: z.literal('message'),
  id: Id.nullish(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: Content,
});
const FunctionCallItem = z.object({
  type: z.literal('function_call'),
  id: Id.nullish(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
const FunctionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  id: Id.nullish(),
  call_id: z.string().min(1),
  output: Content,
});
const ItemReference = z.object({ type: z.literal('item_reference'), id: Id });
const Reasoning = z.object({ type: z.literal('reasoning'), id: Id.nullish() });

/**
 * A message item may leave out its `type` (the SDKs' EasyInputMessage); a message without content or
 * a function call without its call, named by `id`, stands for the stored item of that id.
 */
function itemOf(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  const byId =
    typeof o.id === 'string' &&
    ((o.type ?? 'message') === 'message' ? o.content === undefined : o.type === 'function_call' && o.call_id === undefined);
  if (byId) return { type: 'item_reference', id: o.id };
  return 'type' in o ? o : { ...o, type: 'message' };
}
const Item = z.preprocess(
  itemOf,
  z.discriminatedUnion('type', [MessageItem, FunctionCallItem, FunctionCallOutputItem, ItemReference, Reasoning]),
);
type Item = z.output<typeof Item>;
/** An input item once references are resolved: what a conversation holds. */
export type ConversationItem = Exclude<Item, { type: 'item_reference' }>;
const Resolved = z.array(Item.refine((i) => i.type !== 'item_reference', 'a stored conversation holds no references'));
/** Items kept as JSON (a stored conversation, a stored answer's output), read again as input items. */
export const conversationItems = (json: unknown[]): ConversationItem[] => Resolved.parse(json);

const FunctionTool = z
  .object({
    type: z.string(),
    name: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'A function name is 1 to 64 letters, digits, underscores or dashes')
      .optional(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .superRefine((t, ctx) => {
    if (t.type !== 'function')
      ctx.addIssue({
        code: 'custom',
        path: ['type'],
        message: `The tool type '${t.type}' is not supported by this gateway: only function tools (type 'function') are`,
      });
    else if (!t.name) ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['name'], input: undefined });
  });

const ToolChoiceParam = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), name: z.string().min(1) })]);

const TextFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1).max(64),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const ResponsesRequest = z
  .object({
    model: z.string().min(1),
    input: z.preprocess((v) => (typeof v === 'string' ? [{ role: 'user', content: v }] : v), z.array(Item).min(1).max(2048)),
    instructions: z.string().nullish(),
    tools: z.array(FunctionTool).max(128).nullish(),
    tool_choice: ToolChoiceParam.nullish(),
    text: z.object({ format: TextFormat.nullish() }).nullish(),
    max_output_tokens: z.int().positive().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    store: z.boolean().nullish(),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((m) => Object.keys(m).length <= 16, 'At most 16 metadata pairs')
      .nullish(),
    user: z.string().max(256).nullish(),
    stream: z.boolean().nullish(),
    previous_response_id: Id.nullish(),
    background: z.boolean().nullish(),
  })
  .superRefine((b, ctx) => {
    if (b.background)
      ctx.addIssue({
        code: 'custom',
        path: ['background'],
        message: 'background is not supported: ask without it (stream: true reads the answer as it comes)',
      });
  });
export type ResponsesRequest = z.output<typeof ResponsesRequest>;

type Parts = z.output<typeof Part>[];

const textOf = (c: Parts) => c.flatMap((p) => (p.type === 'input_image' ? [] : [p.type === 'refusal' ? p.refusal : p.text])).join('\n');

function imagesOf(c: Parts): Attachment[] {
  return c.flatMap((p) => {
    if (p.type !== 'input_image') return [];
    if (!p.image_url)
      throw new BadRequest('input_image needs an image_url data URL: this gateway keeps no files (file_id).', {
        code: 'invalid_image_url',
      });
    return [imageOf(p.image_url)];
  });
}

function messageOf(item: Extract<Item, { type: 'message' }>): ChatMessage {
  const attachments = imagesOf(item.content);
  return {
    role: item.role === 'developer' ? 'system' : item.role,
    text: textOf(item.content),
    ...(attachments.length ? { attachments } : {}),
  };
}

/**
 * The conversation: `instructions` as the system message, then the input's items; function calls
 * join their assistant turn. References are resolved before (stored-responses.ts): none is read here.
 */
export function responsesMessages(body: { input: readonly Item[]; instructions?: string | null }): ChatMessage[] {
  const out: ChatMessage[] = body.instructions ? [{ role: 'system', text: body.instructions }] : [];
  const names = new Map<string, string>();
  for (const item of body.input) {
    if (item.type === 'message') out.push(messageOf(item));
    else if (item.type === 'function_call') {
      names.set(item.call_id, item.name);
      const call = { id: item.call_id, name: item.name, arguments: item.arguments };
      const last = out.at(-1);
      if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
      else out.push({ role: 'assistant', text: '', toolCalls: [call] });
    } else if (item.type === 'function_call_output') {
      const name = names.get(item.call_id);
      out.push({ role: 'tool', text: textOf(item.output), toolCallId: item.call_id, ...(name ? { toolName: name } : {}) });
    }
  }
  return out;
}

const toolChoiceOf = (c: ResponsesRequest['tool_choice']): ToolChoice | undefined =>
  !c ? undefined : typeof c === 'string' ? { type: c } : { type: 'tool', name: c.name };

function formatOf(f: z.output<typeof TextFormat> | null | undefined): ResponseFormat | undefined {
  if (!f || f.type !== 'json_schema') return f ?? undefined;
  return {
    type: 'json_schema',
    name: f.name,
    schema: f.schema,
    ...(f.description ? { description: f.description } : {}),
    ...(f.strict != null ? { strict: f.strict } : {}),
  };
}

/** The neutral chat call a Responses request asks for (its model is the route's to find). */
export function responsesToChat(body: Omit<ResponsesRequest, 'input'> & { input: readonly Item[] }): Omit<ChatRequest, 'model'> {
  const tools: ToolDefinition[] | undefined = body.tools?.map((t) => ({
    name: t.name!,
    ...(t.description ? { description: t.description } : {}),
    ...(t.parameters ? { parameters: t.parameters } : {}),
    ...(t.strict != null ? { strict: t.strict } : {}),
  }));
  return {
    messages: responsesMessages(body),
    ...(body.max_output_tokens ? { maxTokens: body.max_output_tokens } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(tools?.length ? { tools } : {}),
    ...(body.tool_choice ? { toolChoice: toolChoiceOf(body.tool_choice) } : {}),
    ...(body.text?.format ? { responseFormat: formatOf(body.text.format) } : {}),
    stream: body.stream === true,
  };
}
