import { z } from 'zod';
import { BadRequest } from '../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from './chat';
import { imageOf } from './openai-wire';

/**
 * OpenAI's Responses API request (`POST /responses`), as the gateway reads it into the
 * provider-neutral chat call. Unknown fields are ignored, as OpenAI ignores fields it does not use.
 * The gateway keeps no responses (docs/decisions.md): what needs a stored one (`previous_response_id`,
 * `item_reference`, `background`) is a 400 saying to send the conversation itself.
 */
const NOT_STORED = 'this gateway keeps no responses: send the whole conversation as `input` items'
  + ' (with @ai-sdk/openai: providerOptions.openai.store = false)';

const InputText = z.object({ type: z.enum(['input_text', 'output_text']), text: z.string() });
const InputImage = z.object({ type: z.literal('input_image'), image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.string().nullish() });
const Refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const Part = z.discriminatedUnion('type', [InputText, InputImage, Refusal]);
/**
 * A string stands for one text part (and `input` for one user message), read as such before the
 * check, so that a bad field is named in the error rather than hidden in a union's.
 */
const asParts = (v: unknown) => (typeof v === 'string' ? [{ type: 'input_text', text: v }] : v);
const Content = z.preprocess(asParts, z.array(Part).max(1000));

const MessageItem = z.object({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: Content,
});
const FunctionCallItem = z.object({
  type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string(),
});
const FunctionCallOutputItem = z.object({
  type: z.literal('function_call_output'), call_id: z.string().min(1),
  output: Content,
});
const ItemReference = z.object({ type: z.literal('item_reference') })
  .superRefine((_v, ctx) => ctx.addIssue({ code: 'custom', message: `item_reference is not supported: ${NOT_STORED}` }));
const Reasoning = z.object({ type: z.literal('reasoning') });

/** A message item may leave out its `type` (the SDKs' EasyInputMessage). */
const Item = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('type' in v) ? { ...v, type: 'message' } : v),
  z.discriminatedUnion('type', [MessageItem, FunctionCallItem, FunctionCallOutputItem, ItemReference, Reasoning]),
);
type Item = z.output<typeof Item>;

const FunctionTool = z.object({
  type: z.string(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'A function name is 1 to 64 letters, digits, underscores or dashes').optional(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
}).superRefine((t, ctx) => {
  if (t.type !== 'function') ctx.addIssue({ code: 'custom', path: ['type'], message: `The tool type '${t.type}' is not supported by this gateway: only function tools (type 'function') are` });
  else if (!t.name) ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['name'], input: undefined });
});

const ToolChoiceParam = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), name: z.string().min(1) }),
]);

const TextFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'), name: z.string().min(1).max(64), schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(), strict: z.boolean().nullish(),
  }),
]);

export const ResponsesRequest = z.object({
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
  metadata: z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'At most 16 metadata pairs').nullish(),
  user: z.string().max(256).nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  background: z.boolean().nullish(),
}).superRefine((b, ctx) => {
  if (b.previous_response_id) ctx.addIssue({ code: 'custom', path: ['previous_response_id'], message: `previous_response_id is not supported: ${NOT_STORED}` });
  if (b.background) ctx.addIssue({ code: 'custom', path: ['background'], message: 'background is not supported: ask without it (stream: true reads the answer as it comes)' });
});
export type ResponsesRequest = z.output<typeof ResponsesRequest>;

type Parts = z.output<typeof Part>[];

const textOf = (c: Parts) => c.flatMap((p) => (p.type === 'input_image' ? [] : [p.type === 'refusal' ? p.refusal : p.text])).join('\n');

function imagesOf(c: Parts): Attachment[] {
  return c.flatMap((p) => {
    if (p.type !== 'input_image') return [];
    if (!p.image_url) throw new BadRequest('input_image needs an image_url data URL: this gateway keeps no files (file_id).', { code: 'invalid_image_url' });
    return [imageOf(p.image_url)];
  });
}

function messageOf(item: Extract<Item, { type: 'message' }>): ChatMessage {
  const attachments = imagesOf(item.content);
  return { role: item.role === 'developer' ? 'system' : item.role, text: textOf(item.content), ...(attachments.length ? { attachments } : {}) };
}

/** The conversation: `instructions` as the system message, then the input's items; function calls join their assistant turn. */
export function responsesMessages(body: Pick<ResponsesRequest, 'input' | 'instructions'>): ChatMessage[] {
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
  (!c ? undefined : typeof c === 'string' ? { type: c } : { type: 'tool', name: c.name });

function formatOf(f: z.output<typeof TextFormat> | null | undefined): ResponseFormat | undefined {
  if (!f || f.type !== 'json_schema') return f ?? undefined;
  return { type: 'json_schema', name: f.name, schema: f.schema, ...(f.description ? { description: f.description } : {}), ...(f.strict != null ? { strict: f.strict } : {}) };
}

/** The neutral chat call a Responses request asks for (its model is the route's to find). */
export function responsesToChat(body: ResponsesRequest): Omit<ChatRequest, 'model'> {
  const tools: ToolDefinition[] | undefined = body.tools?.map((t) => ({
    name: t.name!, ...(t.description ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters } : {}), ...(t.strict != null ? { strict: t.strict } : {}),
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
