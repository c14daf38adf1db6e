import { UpstreamFailed } from '../../../shared/errors';
import { unreadable } from '../../../shared/http/failures';
import type { ChatUsage, FinishReason } from '../../neutral';
import type { StreamEvent, ToolCallDelta } from '../../upstream/chat-stream';

/**
 * The OpenAI chat-completions answer read back, whoever sent it: a vendor upstream (Azure OpenAI,
 * the OpenAI-compatible servers) or our own gateway's group A route (its REST clients). A whole
 * `chat.completion`, or one `chat.completion.chunk` of its stream, as the event chatStreamOf takes:
 * the text, the tool calls (`delta.tool_calls` pieces, `message.tool_calls` whole), the finish
 * reason, the usage (a last chunk without choices under `stream_options.include_usage`), and a failure midway (`{"error": {...}}` from OpenAI, Azure and
 * the gateway; `{"object": "error", "message"}` from vLLM), which throws.
 * Checked by hand, not with a schema: this runs once per chunk of every streamed answer.
 */
interface Wire {
  choices?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | null;
  error?: unknown;
  object?: unknown;
  message?: unknown;
}
interface ToolCallWire {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}
interface ChoiceWire {
  delta?: { content?: unknown; tool_calls?: unknown } | null;
  message?: { content?: unknown; tool_calls?: unknown } | null;
  finish_reason?: unknown;
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
};
/** stop, length, content_filter and tool_calls (the legacy function_call too) as they are; anything else (eos) is a stop. */
export const finishOf = (r: string): FinishReason => FINISH[r] ?? 'stop';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** `tool_calls` entries as pieces: a stream's carry their `index`, a whole message's are indexed in order. */
function toolCallsOf(v: unknown): ToolCallDelta[] | undefined {
  if (!Array.isArray(v) || !v.length) return undefined;
  return (v as (ToolCallWire | null)[]).flatMap((c, i) => {
    if (!c || typeof c !== 'object') return [];
    const id = str(c.id);
    const name = str(c.function?.name);
    const args = typeof c.function?.arguments === 'string' ? c.function.arguments : undefined;
    return [{ index: num(c.index) ?? i, ...(id && { id }), ...(name && { name }), ...(args && { arguments: args }) }];
  });
}

function usageOf(u: Wire['usage']): Partial<ChatUsage> | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const promptTokens = num(u.prompt_tokens);
  const completionTokens = num(u.completion_tokens);
  // OpenAI and Azure count the cached tokens among the prompt's.
  const cachedTokens = num(u.prompt_tokens_details?.cached_tokens);
  return {
    ...(promptTokens !== undefined && { promptTokens }),
    ...(completionTokens !== undefined && { completionTokens }),
    ...(cachedTokens !== undefined && { cachedTokens }),
  };
}

/**
 * The failure a chunk reports, if it is one. `ownCodes`: the other side is one of our services,
 * whose error codes are the platform's and pass on; a vendor's are not (`upstream_error`).
 */
function failureOf(w: Wire, who: string, ownCodes: boolean): UpstreamFailed | undefined {
  const e = typeof w.error === 'object' && w.error !== null ? (w.error as { message?: unknown; code?: unknown }) : undefined;
  if (!e && w.object !== 'error') return undefined;
  const message = str(e ? e.message : w.message);
  const code = (ownCodes && e ? str(e.code) : undefined) ?? 'upstream_error';
  return new UpstreamFailed(`${who} failed midway${message ? `: ${message}` : ''}`, { code });
}

function objectOf(json: unknown, who: string, what: string): Wire {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw unreadable(who, what);
  return json;
}

/** One `chat.completion.chunk` as its event (text, finish reason, usage); a midway error throws. */
export function openAiChunk(json: unknown, who: string, ownCodes = false): StreamEvent {
  const w = objectOf(json, who, 'a stream chunk that is not an object');
  const failed = failureOf(w, who, ownCodes);
  if (failed) throw failed;
  if (!Array.isArray(w.choices)) throw unreadable(who, 'a stream chunk without choices');
  const choice = w.choices[0] as ChoiceWire | undefined;
  const finish = str(choice?.finish_reason);
  return {
    text: str(choice?.delta?.content),
    toolCalls: toolCallsOf(choice?.delta?.tool_calls),
    finishReason: finish ? finishOf(finish) : undefined,
    usage: usageOf(w.usage),
  };
}

/** A whole `chat.completion` as its one event (a missing finish reason is a stop). */
export function openAiCompletion(json: unknown, who: string): StreamEvent {
  const w = objectOf(json, who, 'a chat completion that is not an object');
  const choice = Array.isArray(w.choices) ? (w.choices[0] as ChoiceWire | undefined) : undefined;
  if (!choice || typeof choice !== 'object') throw unreadable(who, 'a chat completion without choices');
  return {
    text: str(choice.message?.content),
    toolCalls: toolCallsOf(choice.message?.tool_calls),
    finishReason: finishOf(str(choice.finish_reason) ?? 'stop'),
    usage: usageOf(w.usage),
  };
}
