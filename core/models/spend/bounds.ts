import type { CatalogModel } from '../catalog/catalog';
import type { ChatMessage, ResponseFormat, ToolDefinition } from '../neutral';
import type { Billed } from './cost';

/**
 * The most a call may cost, before it is made (what the money budgets reserve, budgets.ts). A
 * prompt is bounded without tokenizing it: a token is at least one byte of UTF-8 for the vendors'
 * byte-level tokenizers, so its bytes (attachments' base64 included), plus a few tokens of framing
 * per message, are at least its tokens, and never more than the model's context. The answer is
 * bounded by the request's max tokens, else the model's, else its context.
 */
const PER_MESSAGE = 8;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The prompt's most tokens: its bytes and framing, at most the model's context length. */
export function promptBound(model: CatalogModel, texts: readonly string[], framing = 0): number {
  return Math.min(
    texts.reduce((n, t) => n + bytes(t), framing),
    model.contextLength,
  );
}

export const outputBound = (model: CatalogModel, maxTokens?: number): number => maxTokens ?? model.maxOutputTokens ?? model.contextLength;

/** A chat call's most use. */
export function chatBound(
  model: CatalogModel,
  f: { messages: readonly ChatMessage[]; tools?: readonly ToolDefinition[]; responseFormat?: ResponseFormat; maxTokens?: number },
): Billed {
  const texts = f.messages.flatMap((m) => [
    m.text,
    ...(m.attachments ?? []).map((a) => a.data),
    ...(m.toolCalls ?? []).map((c) => c.name + c.arguments),
  ]);
  if (f.tools?.length) texts.push(JSON.stringify(f.tools));
  if (f.responseFormat) texts.push(JSON.stringify(f.responseFormat));
  return { tokensIn: promptBound(model, texts, PER_MESSAGE * (f.messages.length + 1)), tokensOut: outputBound(model, f.maxTokens) };
}

/**
 * A transcription's most audio: its length is not known before the vendor reads it, so it is
 * bounded by its size at 8 kbit/s (1,000 bytes a second), below the speech codecs' usual rates.
 */
export const audioSecondsBound = (audioBytes: number): number => Math.ceil(audioBytes / 1000);
