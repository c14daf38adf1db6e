import type { ChatStream } from '../../core/models/neutral';
import { chatStreamOf, openAiChunk, openAiCompletion } from '../../core/models/client-wire';

/**
 * The model gateway's group A chat answers as its REST clients read them (services/chat/peers/models.ts,
 * clients/models/index.ts), with the decoder the vendor adapters use (core/models/client-wire.ts).
 */
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

/**
 * The answer's chunks as a ChatStream, from its first chunk on (already read: the gateway accepted
 * the call). `pieces` throws the platform error when the stream breaks midway (the caller's own
 * abort reason when it left), with the gateway's own error code; `done` always resolves, with
 * finishReason `error` then, or when the reader stopped first. Leaving early closes the connection.
 */
export function streamOf(first: IteratorResult<CompletionWire>, rest: AsyncGenerator<CompletionWire>, signal?: AbortSignal): ChatStream {
  let head: IteratorResult<CompletionWire> | undefined = first;
  // The first chunk again, then the rest straight from the HTTP stream (no generator in between).
  const chunks: AsyncIterableIterator<CompletionWire> = {
    next() {
      const r = head;
      head = undefined;
      return r ? Promise.resolve(r) : rest.next();
    },
    return: (value?: unknown) => rest.return(value),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  // The HTTP stream ends only at [DONE] (else it throws): an answer that never named its finish reason stopped.
  return chatStreamOf(chunks, { vendor: GATEWAY, signal, decode: (c) => openAiChunk(c, GATEWAY, true), endedAs: () => 'stop' });
}

/** A whole `chat.completion` as a ChatStream of one piece. */
export const wholeOf = (answer: CompletionWire): ChatStream =>
  chatStreamOf([answer], { vendor: GATEWAY, decode: (c) => openAiCompletion(c, GATEWAY) });
