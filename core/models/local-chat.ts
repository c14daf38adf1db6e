import { encode } from 'gpt-tokenizer';
import { tokens } from '../search/lexical/tokenize';
import { queryWords } from '../search/words';
import type { ChatMessage, ChatRequest, ChatStream, FinishReason, ModelProvider } from './chat';

/**
 * The built-in offline chat model (`local-chat`): extractive. It answers the last user message with
 * the sentences of the rest of the prompt (system prompt, sources, history) that share the most
 * words with it, in their original order, and says so when none do. Honest, instant, and grounded
 * by construction: it can only repeat what the prompt holds. Tokens are counted with gpt-tokenizer
 * (cl100k). The answer streams a few words at a time.
 */
export const NO_ANSWER = 'I could not find an answer to that in the provided context.';
const MAX_SENTENCES = 3;

const sentences = (text: string) => text.split(/(?<=[.!?])\s+|\n{2,}/).map((s) => s.trim()).filter((s) => s.length > 2);

/** The answer: the context's sentences most about the question. */
export function extractiveAnswer(messages: readonly ChatMessage[]): string {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  if (!lastUser) return NO_ANSWER;
  const question = new Set(tokens(queryWords(lastUser.text).join(' ')));
  const context = messages.filter((m) => m !== lastUser).flatMap((m) => sentences(m.text));
  const scored = context.map((s, i) => {
    const words = new Set(tokens(s));
    let overlap = 0;
    for (const q of question) if (words.has(q)) overlap++;
    return { s, i, score: overlap / Math.sqrt(1 + words.size / 10) };
  }).filter((x) => x.score > 0);
  if (!scored.length) return NO_ANSWER;
  const best = scored.sort((a, b) => b.score - a.score || a.i - b.i).slice(0, MAX_SENTENCES).sort((a, b) => a.i - b.i);
  return [...new Set(best.map((x) => x.s))].join(' ');
}

export const countTokens = (text: string): number => encode(text).length;

/** A chat prompt's tokens as cl100k counts them: each message's text plus the chat format's overhead. */
export const promptTokens = (messages: readonly ChatMessage[]) => messages.reduce((n, m) => n + countTokens(m.text) + 4, 3);

export const localChat = (): Required<Pick<ModelProvider, 'chat'>> => ({
  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatStream> {
    let settle!: (v: { finishReason: FinishReason; usage: { promptTokens: number; completionTokens: number } }) => void;
    const done = new Promise<Parameters<typeof settle>[0]>((resolve) => (settle = resolve));
    async function* pieces() {
      const words = extractiveAnswer(req.messages).split(/(?<=\s)/);
      let sent = '';
      let finishReason: FinishReason = 'stop';
      try {
        for (let i = 0; i < words.length; i += 3) {
          if (signal?.aborted) return;
          const piece = words.slice(i, i + 3).join('');
          if (req.maxTokens !== undefined && countTokens(sent + piece) > req.maxTokens) {
            finishReason = 'length';
            break;
          }
          sent += piece;
          yield piece;
        }
      } finally {
        settle({ finishReason, usage: { promptTokens: promptTokens(req.messages), completionTokens: countTokens(sent) } });
      }
    }
    return { pieces: pieces(), done };
  },
});
