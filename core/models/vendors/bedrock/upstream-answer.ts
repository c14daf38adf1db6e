import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import type { FinishReason } from '../../neutral';
import type { StreamEvent } from '../../upstream/chat-stream';

/**
 * Bedrock's answers read back: the ConverseStream events as stream events, and a Titan embedding.
 */

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};
export const bedrockFinish = (r: string | undefined): FinishReason => FINISH[r ?? ''] ?? 'stop';

/**
 * One ConverseStream event as the stream events it holds; an exception event is thrown as it came
 * (the upstream folder maps it, upstream/aws-errors.ts).
 */
export function converseEvents(ev: ConverseStreamOutput): StreamEvent[] {
  const failure =
    ev.internalServerException ??
    ev.modelStreamErrorException ??
    ev.validationException ??
    ev.throttlingException ??
    ev.serviceUnavailableException;
  if (failure) throw failure;
  const out: StreamEvent[] = [];
  if (ev.contentBlockDelta?.delta?.text) out.push({ text: ev.contentBlockDelta.delta.text });
  // A tool call: its id and name start its block, its input's JSON comes in pieces (gathered by the block's index).
  const started = ev.contentBlockStart?.start?.toolUse;
  if (started)
    out.push({ toolCalls: [{ index: ev.contentBlockStart!.contentBlockIndex ?? 0, id: started.toolUseId, name: started.name }] });
  const input = ev.contentBlockDelta?.delta?.toolUse?.input;
  if (input) out.push({ toolCalls: [{ index: ev.contentBlockDelta!.contentBlockIndex ?? 0, arguments: input }] });
  if (ev.messageStop) out.push({ finishReason: bedrockFinish(ev.messageStop.stopReason) });
  const u = ev.metadata?.usage;
  if (u)
    out.push({
      usage: {
        // Converse counts cache reads apart from inputTokens: the neutral prompt holds both.
        ...(u.inputTokens !== undefined ? { promptTokens: u.inputTokens + (u.cacheReadInputTokens ?? 0) } : {}),
        ...(u.cacheReadInputTokens !== undefined ? { cachedTokens: u.cacheReadInputTokens } : {}),
        ...(u.outputTokens !== undefined ? { completionTokens: u.outputTokens } : {}),
      },
    });
  return out;
}

/** What InvokeModel answers for a Titan embedding model. */
export const TitanEmbedding = z.object({ embedding: z.array(z.number()).min(1), inputTextTokenCount: z.number().optional() });
export type TitanEmbedding = z.output<typeof TitanEmbedding>;
/** What InvokeModel takes for a Titan embedding model: one text. */
export interface TitanEmbeddingBody {
  inputText: string;
  dimensions?: number;
}
