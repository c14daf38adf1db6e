import { UpstreamFailed } from '../../../shared/errors';
import { unreadable } from '../../../shared/http/failures';
import type { FinishReason } from '../../neutral';
import type { StreamEvent, ToolCallDelta } from '../../upstream/chat-stream';
import { GenerateContentResponse } from './wire';

/**
 * Gemini's answer (a whole GenerateContentResponse, or each chunk of its stream) read back as stream events.
 */

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);
/** STOP and the others: stop; MAX_TOKENS: length; the safety family: content_filter. */
export const geminiFinish = (r: string): FinishReason => (r === 'MAX_TOKENS' ? 'length' : FILTERED.has(r) ? 'content_filter' : 'stop');

/**
 * A reader of GenerateContentResponse chunks as stream events (thought parts are the model's
 * scratchpad, not its answer). Gemini sends each function call whole, in one part: each becomes
 * one tool-call piece, numbered across the chunks (a call without Gemini's `id` gets one later).
 */
export function geminiDecoder(vendor: string): (json: unknown) => StreamEvent {
  let calls = 0;
  return (json) => {
    const e = geminiEvent(json, vendor);
    const toolCalls = e.parts?.flatMap((p): ToolCallDelta[] =>
      p.functionCall
        ? [
            {
              index: calls++,
              ...(p.functionCall.id && { id: p.functionCall.id }),
              name: p.functionCall.name,
              arguments: JSON.stringify(p.functionCall.args ?? {}),
            },
          ]
        : [],
    );
    return { text: e.text, finishReason: e.finishReason, usage: e.usage, ...(toolCalls?.length && { toolCalls }) };
  };
}

function geminiEvent(json: unknown, vendor: string) {
  const r = GenerateContentResponse.safeParse(json);
  if (!r.success) throw unreadable(vendor, 'a chunk that is not a GenerateContentResponse');
  const { candidates, promptFeedback, usageMetadata: u, error } = r.data;
  if (error) throw new UpstreamFailed(`${vendor} failed midway${error.message ? `: ${error.message}` : ''}`, { code: 'upstream_error' });
  const candidate = candidates?.[0];
  const text = candidate?.content?.parts
    ?.filter((p) => !p.thought)
    .map((p) => p.text ?? '')
    .join('');
  // A blocked prompt comes back with no candidate at all, only the reason.
  const finishReason = promptFeedback?.blockReason
    ? 'content_filter'
    : candidate?.finishReason
      ? geminiFinish(candidate.finishReason)
      : undefined;
  const usage = u
    ? {
        ...(u.promptTokenCount !== undefined ? { promptTokens: u.promptTokenCount } : {}),
        ...(u.candidatesTokenCount !== undefined || u.thoughtsTokenCount !== undefined
          ? { completionTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) }
          : {}),
        ...(u.cachedContentTokenCount !== undefined ? { cachedTokens: u.cachedContentTokenCount } : {}),
      }
    : undefined;
  return { text: text || undefined, finishReason, usage, parts: candidate?.content?.parts };
}
