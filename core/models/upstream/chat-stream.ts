import { PlatformError, UpstreamFailed } from '../../shared/errors';
import type { ChatMessage, ChatStream, ChatUsage, FinishReason } from '../chat';
import { chatPromptTokens, countTokens } from '../tokens';
import { badResponse } from './errors';

/** What an adapter reads out of one piece of its vendor's stream. */
export interface StreamEvent {
  text?: string;
  finishReason?: FinishReason;
  usage?: Partial<ChatUsage>;
}

export interface ChatStreamOptions {
  vendor: string;
  /** The prompt, to estimate its tokens when the upstream does not count them. */
  messages: readonly ChatMessage[];
  /** Its texts' tokens, when the gateway counted them (ChatRequest.promptTokens). */
  promptTokens?: number;
  /** The caller's signal: when it aborted, its reason is rethrown as is. */
  signal?: AbortSignal;
  /** Runs once when the stream ends for any reason (an adapter closes what the SDK keeps open). */
  onEnd?: () => void;
}

/**
 * A ChatStream over an adapter's parsed upstream events. `pieces` yields the text as it comes and
 * throws a PlatformError when the upstream fails midway (or ends without saying how it finished);
 * `done` always resolves, with finishReason `error` then, or when the caller stopped reading first.
 * Token counts the upstream does not give are estimated.
 */
export function chatStreamOf(events: AsyncIterable<StreamEvent>, opts: ChatStreamOptions): ChatStream {
  let settle!: (v: { finishReason: FinishReason; usage: ChatUsage }) => void;
  const done = new Promise<{ finishReason: FinishReason; usage: ChatUsage }>((resolve) => (settle = resolve));
  let text = '';
  let usage: Partial<ChatUsage> = {};
  async function* pieces(): AsyncGenerator<string> {
    let finish: FinishReason | undefined;
    let outcome: FinishReason = 'error';
    try {
      for await (const e of events) {
        if (e.usage) usage = { ...usage, ...e.usage };
        if (e.finishReason) finish = e.finishReason;
        if (e.text) {
          text += e.text;
          yield e.text;
        }
      }
      if (!finish) throw badResponse(opts.vendor, 'the stream ended before saying how the answer finished');
      outcome = finish;
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      throw err instanceof PlatformError ? err : new UpstreamFailed(`${opts.vendor} failed midway`, { code: 'upstream_error', cause: err });
    } finally {
      opts.onEnd?.();
      settle({
        finishReason: outcome,
        usage: { promptTokens: usage.promptTokens ?? chatPromptTokens(opts.messages, opts.promptTokens), completionTokens: usage.completionTokens ?? countTokens(text) },
      });
    }
  }
  return { pieces: pieces(), done };
}
