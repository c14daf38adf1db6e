import { BadRequest } from '../../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../neutral';

/**
 * The OpenAI chat-completions request as the gateway sends it upstream (Azure OpenAI and the
 * OpenAI-compatible servers: Ollama, vLLM, llama.cpp) and as its REST clients send it to the
 * gateway; the answer is read back by upstream-answer.ts. (The doors read the same request with
 * door-request.ts's schema.)
 */
type Part =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { filename: string; file_data: string } };

export interface ChatCompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type ChatCompletionMessage =
  | { role: 'tool'; tool_call_id: string; content: string }
  | { role: 'system' | 'user' | 'assistant'; content: string | Part[] | null; tool_calls?: ChatCompletionToolCall[] };
export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}
export type ChatCompletionToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
export type ChatCompletionFormat =
  | { type: 'text' | 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; description?: string; strict?: boolean } };

/** What the gateway sends to `chat/completions`. */
export interface ChatCompletionBody {
  model?: string;
  messages: ChatCompletionMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  tools?: FunctionTool[];
  tool_choice?: ChatCompletionToolChoice;
  response_format?: ChatCompletionFormat;
  stream?: true;
  stream_options?: { include_usage: true };
}

function partOf(a: Attachment, vendor: string): Part {
  const dataUrl = `data:${a.mimeType};base64,${a.data}`;
  if (a.kind === 'image') return { type: 'image_url', image_url: { url: dataUrl } };
  if (a.kind === 'Docs') return { type: 'file', file: { filename: a.name ?? 'document', file_data: dataUrl } };
  throw new BadRequest(`${vendor} chat completions take no video input`, { code: 'unsupported_input' });
}

function messageOf(m: ChatMessage, vendor: string): ChatCompletionMessage {
  // A tool result answers its call by id; one without an id (a wire that has none) is the user's turn.
  if (m.role === 'tool')
    return m.toolCallId ? { role: 'tool', tool_call_id: m.toolCallId, content: m.text } : { role: 'user', content: m.text };
  const content = m.attachments?.length
    ? [...(m.text ? [{ type: 'text', text: m.text } as Part] : []), ...m.attachments.map((a) => partOf(a, vendor))]
    : m.text;
  if (!m.toolCalls?.length) return { role: m.role, content };
  return {
    role: m.role,
    content: content || null,
    tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
}

export const openAiMessages = (messages: readonly ChatMessage[], vendor: string) => messages.map((m) => messageOf(m, vendor));

export const openAiTool = (t: ToolDefinition): FunctionTool => ({
  type: 'function',
  function: {
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    ...(t.parameters && { parameters: t.parameters }),
    ...(t.strict !== undefined && { strict: t.strict }),
  },
});

export const openAiToolChoice = (c: ToolChoice): ChatCompletionToolChoice =>
  c.type === 'tool' ? { type: 'function', function: { name: c.name } } : c.type;

export function openAiResponseFormat(f: ResponseFormat): ChatCompletionFormat {
  if (f.type !== 'json_schema') return { type: f.type };
  const { name, schema, description, strict } = f;
  return {
    type: 'json_schema',
    json_schema: { name, schema, ...(description !== undefined && { description }), ...(strict !== undefined && { strict }) },
  };
}

/**
 * The request, streamed unless the caller reads the answer whole (`stream: false`); `maxTokensField`
 * is `max_completion_tokens` for Azure (its reasoning models refuse `max_tokens`).
 */
export function chatBody(
  req: ChatRequest,
  vendor: string,
  opts: { maxTokensField: 'max_tokens' | 'max_completion_tokens'; model?: string },
): ChatCompletionBody {
  return {
    ...(opts.model ? { model: opts.model } : {}),
    messages: openAiMessages(req.messages, vendor),
    ...(req.maxTokens !== undefined ? { [opts.maxTokensField]: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { top_p: req.topP } : {}),
    ...(req.stop?.length ? { stop: req.stop } : {}),
    ...(req.tools?.length ? { tools: req.tools.map(openAiTool) } : {}),
    ...(req.toolChoice ? { tool_choice: openAiToolChoice(req.toolChoice) } : {}),
    ...(req.responseFormat ? { response_format: openAiResponseFormat(req.responseFormat) } : {}),
    ...(req.stream === false ? {} : { stream: true, stream_options: { include_usage: true } }),
  };
}
