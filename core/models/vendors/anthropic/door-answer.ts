import type { ChatStream, ChatUsage, FinishReason, ToolCall } from '../../neutral';

/**
 * Anthropic's answers: the message object and the stream events (`message_start`, then per
 * content block `content_block_start` / `content_block_delta` / `content_block_stop`, then
 * `message_delta` with the stop reason and usage, `message_stop`). Tool calls are `tool_use`
 * blocks after the text: whole in a message, and streamed as a block starting with `input: {}`
 * whose `input_json_delta` carries the arguments' JSON text.
 */

export type StopReason = 'end_turn' | 'max_tokens' | 'refusal' | 'tool_use';
export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  caller: { type: 'direct' };
}
export type ContentBlock = TextBlock | ToolUseBlock;
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** A Messages answer as the Anthropic SDKs read it. */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  stop_details: null;
  container: null;
  usage: Usage;
}

/** One event of a streamed Messages answer. */
export type AnthropicStreamEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'content_block_start'; index: number; content_block: ContentBlock }
  | {
      type: 'content_block_delta';
      index: number;
      delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string };
    }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: StopReason; stop_sequence: null }; usage: Usage }
  | { type: 'message_stop' };

/** Any event a door writes on a Messages stream: the answer's, and its own `ping` and `error`. */
export type AnthropicEvent = { type: string } & Record<string, unknown>;

// A guardrail cut (content_filter) is Anthropic's `refusal`: the answer stopped for policy reasons.
const STOP: Record<FinishReason, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'refusal',
  tool_calls: 'tool_use',
  error: 'end_turn',
};
export const anthropicStopReason = (f: FinishReason) => STOP[f];

export interface AnthropicMeta {
  /** `msg_...` */
  id: string;
  model: string;
}

/** Anthropic's tool-use ids start `toolu_`; a call's own id is kept after it (ids sent back map to the same call). */
const toolUseId = (id: string) => (id.startsWith('toolu_') ? id : `toolu_${id}`);
const toolUse = (c: ToolCall, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id: toolUseId(c.id),
  name: c.name,
  input,
  caller: { type: 'direct' },
});

const usageOf = (u: ChatUsage): Usage => ({ input_tokens: u.promptTokens, output_tokens: u.completionTokens });

export function anthropicMessage(
  meta: AnthropicMeta,
  a: { text: string; finishReason: FinishReason; usage: ChatUsage; toolCalls?: ToolCall[] },
): AnthropicMessage {
  const calls = a.toolCalls ?? [];
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [
      ...(a.text || !calls.length ? [{ type: 'text' as const, text: a.text }] : []),
      ...calls.map((c) => toolUse(c, inputOf(c.arguments))),
    ],
    stop_reason: anthropicStopReason(a.finishReason),
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: usageOf(a.usage),
  };
}

/** A tool call's arguments as Anthropic's `input` object (arguments that are not a JSON object become `{}`). */
export function inputOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Anthropic's stream events for an answer. The prompt's token count is known only once the answer
 * has ended, so message_start says 0 and message_delta carries both counts (the Anthropic SDKs take
 * `input_tokens` from it). The text block starts with the first piece (at the end, empty, when
 * there is neither text nor a tool call). A failure midway is thrown from the iteration.
 */
export async function* anthropicStreamEvents(meta: AnthropicMeta, stream: ChatStream): AsyncGenerator<AnthropicStreamEvent> {
  yield {
    type: 'message_start',
    message: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  };
  let index = 0;
  for await (const text of stream.pieces) {
    if (index === 0) yield { type: 'content_block_start', index: index++, content_block: { type: 'text', text: '' } };
    yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } };
  }
  const { finishReason, usage, toolCalls = [] } = await stream.done;
  if (index === 0 && !toolCalls.length) yield { type: 'content_block_start', index: index++, content_block: { type: 'text', text: '' } };
  if (index === 1) yield { type: 'content_block_stop', index: 0 };
  for (const c of toolCalls) {
    const at = index++;
    yield { type: 'content_block_start', index: at, content_block: toolUse(c, {}) };
    yield {
      type: 'content_block_delta',
      index: at,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(inputOf(c.arguments)) },
    };
    yield { type: 'content_block_stop', index: at };
  }
  yield { type: 'message_delta', delta: { stop_reason: anthropicStopReason(finishReason), stop_sequence: null }, usage: usageOf(usage) };
  yield { type: 'message_stop' };
}

/** Anthropic's error types by HTTP status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
    case 405:
    case 415:
    case 422:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
}
