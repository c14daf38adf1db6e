import type { ChatDone, ChatRequest, ChatStream, FinishReason, ModelProvider } from '../../neutral';
import { extractiveAnswer, NO_ANSWER } from './extractive-answer';
import { chosenTool, formatted, toolCallFor, toolResultsAnswer } from './tools';
import type { Offload } from '../../offload/offload';
import { chatPromptTokens, countTokens, runningCount } from '../../prompt/tokens';

/**
 * The built-in offline chat model (`local-chat`), streaming the answer extractive-answer.ts works
 * out; with tools, it calls one or answers from their results as local-tools.ts says, and it
 * answers in JSON when a response format asks for it.
 */
/** The model; with `offload`, the answer to a long prompt is worked out in a worker thread. */
export const localChat = (offload?: Offload): Required<Pick<ModelProvider, 'chat'>> => ({
  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatStream> {
    const usage = (completionTokens: number) => ({ promptTokens: chatPromptTokens(req.messages, req.promptTokens), completionTokens });
    const tool = chosenTool(req);
    if (tool) {
      const call = toolCallFor(tool, req.messages.at(-1)!.text);
      return {
        pieces: (async function* none() {})(),
        done: Promise.resolve({ finishReason: 'tool_calls', usage: usage(countTokens(call.name + call.arguments)), toolCalls: [call] }),
      };
    }
    // Worked out before the answer starts, as an upstream accepts a call: a refusal (the pool's
    // 429) is still the call's status, not a failure midway.
    const texts = req.messages.map((m) => ({ role: m.role, text: m.text }));
    let answer = offload
      ? await offload.run(
          'answer',
          [texts],
          texts.reduce((n, m) => n + m.text.length, 0),
          signal,
        )
      : extractiveAnswer(texts);
    if (answer === NO_ANSWER && req.messages.at(-1)?.role === 'tool') answer = toolResultsAnswer(req.messages);
    answer = formatted(req.responseFormat, answer);
    let settle!: (v: ChatDone) => void;
    const done = new Promise<ChatDone>((resolve) => (settle = resolve));
    async function* pieces() {
      const words = answer.split(/(?<=\s)/);
      const sent = runningCount();
      let completionTokens = 0;
      let finishReason: FinishReason = 'stop';
      try {
        for (let i = 0; i < words.length; i += 3) {
          if (signal?.aborted) return;
          const piece = words.slice(i, i + 3).join('');
          // Counted no further than the limit: one piece may be a whole JSON answer of a large schema.
          if (req.maxTokens !== undefined && sent.with(piece, req.maxTokens) > req.maxTokens) {
            finishReason = 'length';
            break;
          }
          completionTokens = sent.add(piece);
          yield piece;
        }
      } finally {
        settle({ finishReason, usage: usage(completionTokens) });
      }
    }
    return { pieces: pieces(), done };
  },
});
