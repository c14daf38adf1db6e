import { z } from 'zod';
import { BadRequest, UpstreamFailed } from '../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, FinishReason } from '../chat';
import type { StreamEvent } from '../upstream/chat-stream';
import { badResponse } from '../upstream/errors';
import type { SseEvent } from '../upstream/sse';

/**
 * The OpenAI chat-completions wire as the gateway speaks it upstream (Azure OpenAI and the
 * OpenAI-compatible servers: Ollama, vLLM, llama.cpp): the request body, and the SSE chunks of
 * the answer read back as stream events.
 */
type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'file'; file: { filename: string; file_data: string } };

function partOf(a: Attachment, vendor: string): Part {
  const dataUrl = `data:${a.mimeType};base64,${a.data}`;
  if (a.kind === 'image') return { type: 'image_url', image_url: { url: dataUrl } };
  if (a.kind === 'Docs') return { type: 'file', file: { filename: a.name ?? 'document', file_data: dataUrl } };
  throw new BadRequest(`${vendor} chat completions take no video input`, { code: 'unsupported_input' });
}

// A `tool` message needs a tool_call_id the neutral message does not carry: it goes up as the user's turn.
const roleOf = (r: ChatMessage['role']) => (r === 'tool' ? 'user' : r);

export function openAiMessages(messages: readonly ChatMessage[], vendor: string) {
  return messages.map((m) => ({
    role: roleOf(m.role),
    content: m.attachments?.length ? [...(m.text ? [{ type: 'text', text: m.text } as Part] : []), ...m.attachments.map((a) => partOf(a, vendor))] : m.text,
  }));
}

/**
 * The request, streamed unless the caller reads the answer whole (`stream: false`); `maxTokensField`
 * is `max_completion_tokens` for Azure (its reasoning models refuse `max_tokens`).
 */
export function chatBody(req: ChatRequest, vendor: string, opts: { maxTokensField: 'max_tokens' | 'max_completion_tokens'; model?: string }) {
  return {
    ...(opts.model ? { model: opts.model } : {}),
    messages: openAiMessages(req.messages, vendor),
    ...(req.maxTokens !== undefined ? { [opts.maxTokensField]: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { top_p: req.topP } : {}),
    ...(req.stop?.length ? { stop: req.stop } : {}),
    ...(req.stream === false ? {} : { stream: true, stream_options: { include_usage: true } }),
  };
}

const Completion = z.object({
  choices: z.array(z.object({
    message: z.object({ content: z.string().nullish() }).nullish(),
    finish_reason: z.string().nullish(),
  })).min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

/** A whole (non-streamed) chat completion as the one event it is. */
export async function* openAiCompletion(json: unknown, vendor: string): AsyncGenerator<StreamEvent> {
  const r = Completion.safeParse(json);
  if (!r.success) throw badResponse(vendor, 'a chat completion without choices');
  const choice = r.data.choices[0]!;
  const usage = r.data.usage;
  yield {
    text: choice.message?.content ?? undefined,
    finishReason: finishOf(choice.finish_reason ?? 'stop'),
    usage: usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : undefined,
  };
}

const Chunk = z.object({
  choices: z.array(z.object({
    delta: z.object({ content: z.string().nullish() }).nullish(),
    finish_reason: z.string().nullish(),
  })),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});
// OpenAI and Azure wrap a midway failure in `error`; vLLM sends `{"object":"error","message"}`.
const StreamError = z.union([
  z.object({ error: z.object({ message: z.string().optional() }).loose() }).transform((e) => e.error.message),
  z.object({ object: z.literal('error'), message: z.string().optional() }).transform((e) => e.message),
]);

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length', content_filter: 'content_filter' };
/** stop, length and content_filter as they are; anything else (tool_calls, function_call, eos) is a stop. */
export const finishOf = (r: string): FinishReason => FINISH[r] ?? 'stop';

/**
 * The answer's chunks as stream events, up to `data: [DONE]`; what follows it is read and
 * ignored so the connection goes back to the pool instead of being cut.
 */
export async function* openAiEvents(events: AsyncIterable<SseEvent>, vendor: string): AsyncGenerator<StreamEvent> {
  let finished = false;
  let sawFinish = false;
  for await (const ev of events) {
    if (finished) continue;
    if (ev.data.trim() === '[DONE]') {
      finished = true;
      // A server that ends with [DONE] but never named a finish reason finished normally.
      if (!sawFinish) yield { finishReason: 'stop' };
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(ev.data);
    } catch {
      throw badResponse(vendor, 'a stream chunk that is not JSON');
    }
    // Only a chunk that looks like a failure is checked as one (a failed parse per chunk costs).
    const suspect = typeof json === 'object' && json !== null && ('error' in json || (json as { object?: unknown }).object === 'error');
    const failed = suspect ? StreamError.safeParse(json) : undefined;
    if (failed?.success) throw new UpstreamFailed(`${vendor} failed midway${failed.data ? `: ${failed.data}` : ''}`, { code: 'upstream_error' });
    const chunk = Chunk.safeParse(json);
    if (!chunk.success) throw badResponse(vendor, 'a stream chunk without choices');
    const choice = chunk.data.choices[0];
    const usage = chunk.data.usage;
    if (choice?.finish_reason) sawFinish = true;
    yield {
      text: choice?.delta?.content ?? undefined,
      finishReason: choice?.finish_reason ? finishOf(choice.finish_reason) : undefined,
      usage: usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : undefined,
    };
  }
}
