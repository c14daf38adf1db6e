import { BadRequest } from '../../shared/errors';
import type { ChatMessage, ToolCall } from '../neutral';

/**
 * What the vendors that carry tool calls as JSON objects (Gemini `functionCall.args`, Bedrock
 * `toolUse.input`) and tool results by name (Gemini `functionResponse.name`) need from the neutral
 * messages, where arguments are JSON text (OpenAI's way) and a result names only its call's id.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A call's arguments as the object they encode (empty text is `{}`); anything else is the caller's 400. */
export function argumentsObject(call: ToolCall): Record<string, unknown> {
  if (!call.arguments.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(call.arguments);
  } catch {
    value = undefined;
  }
  if (!isObject(value))
    throw new BadRequest(`The arguments of the tool call ${call.id} (${call.name}) are not a JSON object`, { code: 'invalid_tool_call' });
  return value;
}

/** A tool result's text as a JSON object when it is one (a vendor then gets structured data), else undefined. */
export function resultObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The tool a `tool` message answers: its own toolName, else the name of the earlier call it answers. */
export function toolNameOf(m: ChatMessage, messages: readonly ChatMessage[]): string {
  if (m.toolName) return m.toolName;
  const call = messages.flatMap((x) => x.toolCalls ?? []).find((c) => c.id === m.toolCallId);
  if (!call)
    throw new BadRequest(`The tool result for ${m.toolCallId ?? 'an unnamed call'} answers no earlier tool call; name its tool`, {
      code: 'invalid_tool_result',
    });
  return call.name;
}

/** The id an earlier call of this tool had (Gemini answers by name): the last such call's, if any. */
export function toolCallIdOf(name: string, messages: readonly ChatMessage[]): string | undefined {
  return messages
    .flatMap((x) => x.toolCalls ?? [])
    .filter((c) => c.name === name)
    .at(-1)?.id;
}
