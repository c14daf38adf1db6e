import type {
  ContentBlockDeltaEvent,
  ContentBlockStartEvent,
  ContentBlockStopEvent,
  ConverseStreamMetadataEvent,
  Message,
  MessageStartEvent,
  MessageStopEvent,
  StopReason,
  TokenUsage,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import type { ChatStream, ChatUsage, FinishReason, ToolCall } from '../../neutral';
import { resultObject } from '../tool-calls';

/**
 * The neutral answer written back to a Bedrock door's caller in Converse's terms (the shapes the
 * AWS SDK reads, as the provider does): whole, or as ConverseStream events.
 */
const STOP: Record<FinishReason, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'content_filtered',
  tool_calls: 'tool_use',
  error: 'end_turn',
};
export const converseStopReason = (f: FinishReason) => STOP[f];

export const converseUsage = (u: ChatUsage): TokenUsage => ({
  inputTokens: u.promptTokens,
  outputTokens: u.completionTokens,
  totalTokens: u.promptTokens + u.completionTokens,
});

/** A JSON document as the SDK types it. */
type DocumentType = NonNullable<ToolUseBlock['input']>;

const toolUseOf = (c: ToolCall): ToolUseBlock => ({
  toolUseId: c.id,
  name: c.name,
  input: (resultObject(c.arguments) ?? {}) as DocumentType,
});

/** The answer's message: its text block (none when it only called tools), then its toolUse blocks. */
export const converseMessage = (a: { text: string; toolCalls?: ToolCall[] }): Message => ({
  role: 'assistant',
  content: [...(a.text || !a.toolCalls?.length ? [{ text: a.text }] : []), ...(a.toolCalls ?? []).map((c) => ({ toolUse: toolUseOf(c) }))],
});

/** Converse's answer: the message, why it stopped, tokens and latency. */
export const converseResponse = (
  a: { text: string; finishReason: FinishReason; usage: ChatUsage; toolCalls?: ToolCall[] },
  latencyMs: number,
) => ({
  output: { message: converseMessage(a) },
  stopReason: converseStopReason(a.finishReason),
  usage: converseUsage(a.usage),
  metrics: { latencyMs },
});

/** One ConverseStream event: its `:event-type` and its payload, typed as the AWS SDK reads them (the provider's upstream-answer.ts). */
export type ConverseEvent =
  | { event: 'messageStart'; payload: MessageStartEvent }
  | { event: 'contentBlockStart'; payload: ContentBlockStartEvent }
  | { event: 'contentBlockDelta'; payload: ContentBlockDeltaEvent }
  | { event: 'contentBlockStop'; payload: ContentBlockStopEvent }
  | { event: 'messageStop'; payload: MessageStopEvent }
  | { event: 'metadata'; payload: ConverseStreamMetadataEvent };

/**
 * ConverseStream's events for an answer: messageStart, a contentBlockDelta per piece, contentBlockStop,
 * then each tool call as its own block (contentBlockStart with its id and name, a contentBlockDelta
 * with its input's JSON, contentBlockStop), messageStop with the stop reason, metadata with usage
 * and latency. A failure midway is thrown from the iteration (the route writes it as an exception event).
 */
export async function* converseStreamEvents(stream: ChatStream, latencyMs: () => number): AsyncGenerator<ConverseEvent> {
  yield { event: 'messageStart', payload: { role: 'assistant' } };
  let texts = 0;
  for await (const text of stream.pieces) {
    texts++;
    yield { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text } } };
  }
  const { finishReason, usage, toolCalls = [] } = await stream.done;
  // The text is block 0 when there was any (or nothing else); the calls follow it.
  const first = texts || !toolCalls.length ? 1 : 0;
  if (first) yield { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } };
  for (const [i, c] of toolCalls.entries()) {
    const contentBlockIndex = first + i;
    yield { event: 'contentBlockStart', payload: { contentBlockIndex, start: { toolUse: { toolUseId: c.id, name: c.name } } } };
    yield { event: 'contentBlockDelta', payload: { contentBlockIndex, delta: { toolUse: { input: JSON.stringify(toolUseOf(c).input) } } } };
    yield { event: 'contentBlockStop', payload: { contentBlockIndex } };
  }
  yield { event: 'messageStop', payload: { stopReason: converseStopReason(finishReason) } };
  yield { event: 'metadata', payload: { usage: converseUsage(usage), metrics: { latencyMs: latencyMs() } } };
}
