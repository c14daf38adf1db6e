import type { ChatStream, ChatUsage, FinishReason, ToolCall } from '../../neutral';

/**
 * A neutral chat answer in OpenAI's chat-completions wire: the whole `chat.completion`, or the
 * `chat.completion.chunk` objects of its stream (text deltas; then, for each tool call, a chunk
 * naming it and one carrying its arguments, as OpenAI streams them; the finish chunk; usage when
 * `stream_options.include_usage` asked). Shared by every route that answers in this wire.
 */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export const openAiUsage = (u: ChatUsage) => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.promptTokens + u.completionTokens,
});

const wireCall = (c: ToolCall) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } });

export function chatCompletion(
  meta: CompletionMeta,
  answer: { text: string; finishReason: FinishReason; usage: ChatUsage; toolCalls?: ToolCall[] },
) {
  const calls = answer.toolCalls ?? [];
  // OpenAI: an answer that only calls tools has `content: null`.
  const message = calls.length
    ? { role: 'assistant' as const, content: answer.text || null, tool_calls: calls.map(wireCall), refusal: null }
    : { role: 'assistant' as const, content: answer.text, refusal: null };
  return {
    ...meta,
    object: 'chat.completion' as const,
    choices: [{ index: 0, message, finish_reason: answer.finishReason, logprobs: null }],
    usage: openAiUsage(answer.usage),
  };
}

export async function* chatCompletionChunks(meta: CompletionMeta, stream: ChatStream, includeUsage: boolean) {
  const chunk = (delta: Record<string, unknown>, finish: FinishReason | null = null) => ({
    ...meta,
    object: 'chat.completion.chunk' as const,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  yield chunk({ role: 'assistant', content: '' });
  for await (const piece of stream.pieces) yield chunk({ content: piece });
  const { finishReason, usage, toolCalls = [] } = await stream.done;
  for (const [index, c] of toolCalls.entries()) {
    yield chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    yield chunk({ tool_calls: [{ index, function: { arguments: c.arguments } }] });
  }
  yield chunk({}, finishReason);
  if (includeUsage) yield { ...meta, object: 'chat.completion.chunk' as const, choices: [], usage: openAiUsage(usage) };
}
