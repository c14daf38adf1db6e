import { PlatformError, UpstreamFailed } from '../../core/shared/errors';
import type { ChatStream, ChatUsage, FinishReason } from '../../core/models/chat';
import { finishOf } from '../../core/models/providers/openai-chat-shared';

/** The model gateway's group A chat answers as its REST clients read them (clients/chat/models.ts, clients/models/index.ts). */
export const GATEWAY = 'the model gateway';
export const PREFIX = '/proxy/api/v1';
/** The Azure OpenAI API version the clients ask for. */
export const API_VERSION = '2024-10-21';

/** The group A answer: a `chat.completion`, or one `chat.completion.chunk` of its stream (or a midway `error`). */
export interface CompletionWire {
  choices?: { message?: { content?: string | null }; delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string };
}

export const usageOf = (u: CompletionWire['usage']): ChatUsage => ({ promptTokens: u?.prompt_tokens ?? 0, completionTokens: u?.completion_tokens ?? 0 });

function failedMidway(e: NonNullable<CompletionWire['error']>): UpstreamFailed {
  return new UpstreamFailed(`${GATEWAY} failed midway${e.message ? `: ${e.message}` : ''}`, { code: e.code ?? 'upstream_error' });
}

/**
 * The answer's chunks as a ChatStream, from its first chunk on (already read: the gateway accepted
 * the call). `pieces` throws the platform error when the stream breaks midway (the caller's own
 * abort reason when it left); `done` always resolves, with finishReason `error` then, or when the
 * reader stopped first. Leaving the loop early cancels the HTTP body.
 */
export function streamOf(first: IteratorResult<CompletionWire>, rest: AsyncGenerator<CompletionWire>, signal?: AbortSignal): ChatStream {
  let settle!: (v: { finishReason: FinishReason; usage: ChatUsage }) => void;
  const done = new Promise<{ finishReason: FinishReason; usage: ChatUsage }>((resolve) => (settle = resolve));
  async function* pieces(): AsyncGenerator<string> {
    let finish: FinishReason = 'stop';
    let outcome: FinishReason = 'error';
    let usage = usageOf(undefined);
    try {
      for (let r = first; !r.done; r = await rest.next()) {
        const c = r.value;
        if (c.error) throw failedMidway(c.error);
        if (c.usage) usage = usageOf(c.usage);
        const choice = c.choices?.[0];
        if (choice?.finish_reason) finish = finishOf(choice.finish_reason);
        if (choice?.delta?.content) yield choice.delta.content;
      }
      outcome = finish;
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      throw err instanceof PlatformError ? err : new UpstreamFailed(`${GATEWAY}: the answer broke off`, { code: 'upstream_error', cause: err });
    } finally {
      await rest.return(undefined).catch(() => undefined);
      settle({ finishReason: outcome, usage });
    }
  }
  return { pieces: pieces(), done };
}

/** A whole `chat.completion` as a ChatStream of one piece. */
export function wholeOf(answer: CompletionWire): ChatStream {
  const choice = answer.choices?.[0];
  if (!choice) throw new UpstreamFailed(`${GATEWAY} sent a chat completion without choices`, { code: 'upstream_bad_response' });
  const text = choice.message?.content ?? '';
  const finishReason = finishOf(choice.finish_reason ?? 'stop');
  return { pieces: (async function* whole() { if (text) yield text; })(), done: Promise.resolve({ finishReason, usage: usageOf(answer.usage) }) };
}

