import { z } from 'zod';
import { UpstreamFailed } from '../../shared/errors';
import type { ChatMessage, ChatRequest, FinishReason } from '../chat';
import { unreadable } from '../../shared/http/failures';
import type { StreamEvent } from '../upstream/chat-stream';

/**
 * The Gemini API's generateContent wire: system messages become `systemInstruction`, the model's
 * own turns are role `model`, attachments `inlineData`; the answer's chunks (GenerateContentResponse)
 * read back as stream events.
 */
type Part = { text: string } | { inlineData: { mimeType: string; data: string } };

const partsOf = (m: ChatMessage): Part[] => {
  const media = (m.attachments ?? []).map((a) => ({ inlineData: { mimeType: a.mimeType, data: a.data } }));
  // Gemini refuses a content with no parts: a message with neither text nor media keeps its empty text.
  return m.text || !media.length ? [{ text: m.text }, ...media] : media;
};

export function generateContentBody(req: ChatRequest) {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.text).filter(Boolean);
  const config = {
    ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { topP: req.topP } : {}),
    ...(req.stop?.length ? { stopSequences: req.stop } : {}),
  };
  return {
    contents: req.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: partsOf(m) })),
    ...(system.length ? { systemInstruction: { parts: system.map((text) => ({ text })) } } : {}),
    ...(Object.keys(config).length ? { generationConfig: config } : {}),
  };
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);
/** STOP and the others: stop; MAX_TOKENS: length; the safety family: content_filter. */
export const geminiFinish = (r: string): FinishReason => (r === 'MAX_TOKENS' ? 'length' : FILTERED.has(r) ? 'content_filter' : 'stop');

const Chunk = z.object({
  candidates: z.array(z.object({
    content: z.object({ parts: z.array(z.object({ text: z.string().optional(), thought: z.boolean().optional() }).loose()).optional() }).loose().optional(),
    finishReason: z.string().optional(),
  }).loose()).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).loose().optional(),
  usageMetadata: z.object({
    promptTokenCount: z.number().optional(), candidatesTokenCount: z.number().optional(), thoughtsTokenCount: z.number().optional(),
  }).loose().optional(),
  error: z.object({ message: z.string().optional() }).loose().optional(),
});

/** One GenerateContentResponse as a stream event (thought parts are the model's scratchpad, not its answer). */
export function geminiEvent(json: unknown, vendor: string): StreamEvent {
  const r = Chunk.safeParse(json);
  if (!r.success) throw unreadable(vendor, 'a chunk that is not a GenerateContentResponse');
  const { candidates, promptFeedback, usageMetadata: u, error } = r.data;
  if (error) throw new UpstreamFailed(`${vendor} failed midway${error.message ? `: ${error.message}` : ''}`, { code: 'upstream_error' });
  const candidate = candidates?.[0];
  const text = candidate?.content?.parts?.filter((p) => !p.thought).map((p) => p.text ?? '').join('');
  // A blocked prompt comes back with no candidate at all, only the reason.
  const finishReason = promptFeedback?.blockReason ? 'content_filter' : candidate?.finishReason ? geminiFinish(candidate.finishReason) : undefined;
  const usage = u ? {
    ...(u.promptTokenCount !== undefined ? { promptTokens: u.promptTokenCount } : {}),
    ...(u.candidatesTokenCount !== undefined || u.thoughtsTokenCount !== undefined
      ? { completionTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) } : {}),
  } : undefined;
  return { text: text || undefined, finishReason, usage };
}
