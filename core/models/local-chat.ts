import type { ChatRequest, ChatStream, FinishReason, ModelProvider } from './chat';
import { extractiveAnswer } from './extractive-answer';
import type { Offload } from './offload';
import { chatPromptTokens, runningCount } from './tokens';

/** The built-in offline chat model (`local-chat`), streaming the answer extractive-answer.ts works out. */
/** The model; with `offload`, the answer to a long prompt is worked out in a worker thread. */
export const localChat = (offload?: Offload): Required<Pick<ModelProvider, 'chat'>> => ({
  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatStream> {
    // Worked out before the answer starts, as an upstream accepts a call: a refusal (the pool's
    // 429) is still the call's status, not a failure midway.
    const texts = req.messages.map((m) => ({ role: m.role, text: m.text }));
    const answer = offload ? await offload.run('answer', [texts], texts.reduce((n, m) => n + m.text.length, 0), signal) : extractiveAnswer(texts);
    let settle!: (v: { finishReason: FinishReason; usage: { promptTokens: number; completionTokens: number } }) => void;
    const done = new Promise<Parameters<typeof settle>[0]>((resolve) => (settle = resolve));
    async function* pieces() {
      const words = answer.split(/(?<=\s)/);
      const sent = runningCount();
      let completionTokens = 0;
      let finishReason: FinishReason = 'stop';
      try {
        for (let i = 0; i < words.length; i += 3) {
          if (signal?.aborted) return;
          const piece = words.slice(i, i + 3).join('');
          if (req.maxTokens !== undefined && sent.with(piece) > req.maxTokens) {
            finishReason = 'length';
            break;
          }
          completionTokens = sent.add(piece);
          yield piece;
        }
      } finally {
        settle({ finishReason, usage: { promptTokens: chatPromptTokens(req.messages, req.promptTokens), completionTokens } });
      }
    }
    return { pieces: pieces(), done };
  },
});
