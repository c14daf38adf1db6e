import { PlatformError, UpstreamFailed } from '../../shared/errors';
import type { ChatDone, ChatMessage, ChatStream, ChatUsage, FinishReason, ToolCall } from '../neutral';
import { chatPromptTokens, countTokens } from '../prompt/tokens';
import { unreadable } from '../../shared/http/failures';

/** What an adapter reads out of one piece of its vendor's stream. */
export interface StreamEvent {
  text?: string;
  finishReason?: FinishReason;
  usage?: Partial<ChatUsage>;
  /** Pieces of tool calls, gathered by `index` (OpenAI's deltas; a vendor that sends whole calls sends one piece each). */
  toolCalls?: ToolCallDelta[];
}

/** A piece of a tool call: the first piece of an index names it (id, name); `arguments` pieces are appended. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** Tool-call pieces gathered into whole calls (a call without an id gets `call_<n>`; no arguments is `{}`). */
export function toolCallGatherer() {
  const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
  return {
    add(deltas: readonly ToolCallDelta[]) {
      for (const d of deltas) {
        const c = calls.get(d.index) ?? { arguments: '' };
        if (d.id) c.id = d.id;
        if (d.name) c.name = (c.name ?? '') + d.name;
        if (d.arguments) c.arguments += d.arguments;
        calls.set(d.index, c);
      }
    },
    calls(): ToolCall[] | undefined {
      if (!calls.size) return undefined;
      return [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([i, c]) => ({ id: c.id ?? `call_${i}`, name: c.name ?? '', arguments: c.arguments || '{}' }));
    },
  };
}

export interface ChatStreamOptions {
  vendor: string;
  /** The prompt, to estimate its tokens when the upstream does not count them (none given: 0 unless `promptTokens`). */
  messages?: readonly ChatMessage[];
  /** Its texts' tokens, when the gateway counted them (ChatRequest.promptTokens). */
  promptTokens?: number;
  /** The caller's signal: when it aborted, its reason is rethrown as is. */
  signal?: AbortSignal;
  /** Runs once when the stream ends for any reason (an adapter closes what the SDK keeps open). */
  onEnd?: () => void;
  /** How the answer finished when its stream ended without saying; undefined (the default): it was cut short. */
  endedAs?: () => FinishReason | undefined;
}

/**
 * A ChatStream over an adapter's upstream events. `pieces` yields the text as it comes and throws a
 * PlatformError when the upstream fails midway (or ends without saying how it finished); `done`
 * always resolves, with finishReason `error` then, or when the caller stopped reading first. Token
 * counts the upstream does not give are estimated; tool-call pieces are gathered into `done.toolCalls`. `decode` reads each item of a vendor's stream
 * (a parsed chunk) as its event, so no other loop runs per chunk.
 */
export function chatStreamOf(events: AsyncIterable<StreamEvent>, opts: ChatStreamOptions): ChatStream;
export function chatStreamOf<T>(
  items: AsyncIterable<T> | Iterable<T>,
  opts: ChatStreamOptions & { decode(this: void, item: T): StreamEvent },
): ChatStream;
export function chatStreamOf<T>(
  items: AsyncIterable<T> | Iterable<T>,
  opts: ChatStreamOptions & { decode?(this: void, item: T): StreamEvent },
): ChatStream {
  let settle!: (v: ChatDone) => void;
  const done = new Promise<ChatDone>((resolve) => (settle = resolve));
  const decode = opts.decode;
  const tools = toolCallGatherer();
  let text = '';
  let usage: Partial<ChatUsage> = {};
  async function* pieces(): AsyncGenerator<string> {
    let finish: FinishReason | undefined;
    let outcome: FinishReason = 'error';
    try {
      for await (const item of items) {
        const e = decode ? decode(item) : (item as StreamEvent);
        if (e.usage) usage = { ...usage, ...e.usage };
        if (e.finishReason) finish = e.finishReason;
        if (e.toolCalls) tools.add(e.toolCalls);
        if (e.text) {
          text += e.text;
          yield e.text;
        }
      }
      finish ??= opts.endedAs?.();
      if (!finish) throw unreadable(opts.vendor, 'the stream ended before saying how the answer finished');
      // An answer that called tools and stopped waits for their results, whatever its vendor calls
      // that (Gemini's STOP, OpenAI's stop when tool_choice named the function).
      outcome = finish === 'stop' && tools.calls() ? 'tool_calls' : finish;
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      throw err instanceof PlatformError ? err : new UpstreamFailed(`${opts.vendor} failed midway`, { code: 'upstream_error', cause: err });
    } finally {
      opts.onEnd?.();
      // Counted only when the upstream did not say (counting a long prompt costs).
      const promptTokens =
        usage.promptTokens ?? (opts.messages ? chatPromptTokens(opts.messages, opts.promptTokens) : (opts.promptTokens ?? 0));
      const toolCalls = tools.calls();
      const completionTokens = usage.completionTokens ?? countTokens(text + (toolCalls ?? []).map((c) => c.name + c.arguments).join(''));
      const cached = usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {};
      settle({ finishReason: outcome, usage: { promptTokens, completionTokens, ...cached }, ...(toolCalls ? { toolCalls } : {}) });
    }
  }
  return { pieces: pieces(), done };
}
