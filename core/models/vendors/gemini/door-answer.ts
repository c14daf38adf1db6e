import type { ChatStream, ChatUsage, FinishReason, ToolCall } from '../../neutral';
import { resultObject } from '../tool-calls';
import type { Candidate, GenerateContentResponse } from './wire';

/**
 * The neutral answer written back to a Gemini door's caller as GenerateContentResponse objects
 * (the shape the provider reads from Gemini, wire.ts): whole, or as the chunks of a stream.
 */
// A guardrail cut (content_filter) is Gemini's SAFETY: the answer stopped for policy reasons.
const FINISH: Record<FinishReason, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  tool_calls: 'STOP',
  error: 'OTHER',
};

export interface GeminiMeta {
  responseId: string;
  modelVersion: string;
}

/** A function call as Gemini's part (the arguments as the object they encode; a model's arguments that are none are `{}`). */
const functionCallPart = (c: ToolCall) => ({ functionCall: { id: c.id, name: c.name, args: resultObject(c.arguments) ?? {} } });

/** The text (none when the answer is only function calls), then the calls. */
const candidate = (text: string, finishReason?: FinishReason, toolCalls: readonly ToolCall[] = []): Candidate => ({
  content: { parts: [...(text || !toolCalls.length ? [{ text }] : []), ...toolCalls.map(functionCallPart)], role: 'model' },
  ...(finishReason ? { finishReason: FINISH[finishReason] } : {}),
  index: 0,
});

const usageMetadata = (u: ChatUsage) => ({
  promptTokenCount: u.promptTokens,
  candidatesTokenCount: u.completionTokens,
  totalTokenCount: u.promptTokens + u.completionTokens,
});

export const geminiResponse = (
  meta: GeminiMeta,
  a: { text: string; finishReason: FinishReason; usage: ChatUsage; toolCalls?: ToolCall[] },
): GenerateContentResponse & GeminiMeta => ({
  candidates: [candidate(a.text, a.finishReason, a.toolCalls)],
  usageMetadata: usageMetadata(a.usage),
  ...meta,
});

/**
 * GenerateContentResponse chunks, one text part each. One piece is held back so that the last
 * carries finishReason and usageMetadata, as Gemini's last chunk does, and the function calls
 * (whole, as Gemini streams them). A failure midway is thrown from the iteration (after the held piece).
 */
export async function* geminiChunks(meta: GeminiMeta, stream: ChatStream): AsyncGenerator<GenerateContentResponse & GeminiMeta> {
  let held: string | undefined;
  try {
    for await (const text of stream.pieces) {
      if (held !== undefined) yield { candidates: [candidate(held)], ...meta };
      held = text;
    }
  } catch (err) {
    if (held !== undefined) yield { candidates: [candidate(held)], ...meta };
    throw err;
  }
  const { finishReason, usage, toolCalls } = await stream.done;
  yield geminiResponse(meta, { text: held ?? '', finishReason, usage, toolCalls });
}
