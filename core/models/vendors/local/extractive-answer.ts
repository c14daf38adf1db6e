import { tokens } from '../../../shared/text/tokenize';
import { queryWords, wordsOf } from '../../../shared/text/words';
import type { ChatMessage } from '../../neutral';
import { chatPromptTokens } from '../../prompt/tokens';

/**
 * The built-in offline chat model (`local-chat`): extractive. It answers the last user message with
 * the sentences of the rest of the prompt (system prompt, sources, history) that share the most
 * words with it, in their original order, and says so when none do. Honest, instant, and grounded
 * by construction: it can only repeat what the prompt holds. Tokens are counted as tokens.ts does
 * (o200k). The answer streams a few words at a time (local-chat.ts).
 *
 * It skips what is not prose (code, markup, walls of text). Three conventions make it a fair stand-in for a real model behind the chat proxy:
 * - numbered sources: when paragraphs of the prompt start with `[n]` (a heading line), it answers
 *   from those paragraphs only and cites each sentence with its number;
 * - continuation: a last user message `continue` after an assistant message picks up where that
 *   message stopped (the answer to the user message before it, less what was already said);
 * - a system message asking for a "standalone question" is answered with the follow-up question
 *   plus the content words of the earlier user messages it lacks (a query rewrite, not an answer).
 */
export const NO_ANSWER = 'I could not find an answer to that in the provided context.';
const MAX_SENTENCES = 3;
const CITED = /^\[(\d{1,4})\][^\n]*(?:\n|$)/;

/** Prose, not code or markup: no braces, dollars, backslashes and the like, mostly letters, not a wall of text. */
const isProse = (s: string) =>
  s.length <= 400 && !/[{}$\\=<>|`]/.test(s) && (s.match(/[\p{L}\s,.;:!?'"()-]/gu)?.length ?? 0) >= 0.85 * s.length;

const sentences = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n{2,}/)
    .map((s) => s.trim())
    .filter((s) => s.length > 2 && isProse(s));

interface Sentence {
  text: string;
  cite?: string;
}

/** The prompt's numbered sources' sentences, each with its citation; none when the prompt numbers none. */
function citedSentences(messages: readonly ChatMessage[]): Sentence[] {
  const out: Sentence[] = [];
  for (const m of messages) {
    for (const para of m.text.split(/\n{2,}/)) {
      const head = CITED.exec(para.trim());
      if (head) out.push(...sentences(para.trim().slice(head[0].length)).map((text) => ({ text, cite: `[${head[1]}]` })));
    }
  }
  return out;
}

function bestSentences(question: string, pool: readonly Sentence[]): string {
  const words = new Set(tokens(queryWords(question).join(' ')));
  const scored = pool
    .map((s, i) => {
      const have = new Set(tokens(s.text));
      let overlap = 0;
      for (const q of words) if (have.has(q)) overlap++;
      return { s, i, score: overlap / Math.sqrt(1 + have.size / 10) };
    })
    .filter((x) => x.score > 0);
  if (!scored.length) return NO_ANSWER;
  const ranked = scored.sort((a, b) => b.score - a.score || a.i - b.i);
  // Sentences far less about the question than the best one are left out rather than padded in.
  const best = ranked
    .filter((x) => x.score >= ranked[0].score / 2)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.i - b.i);
  return [...new Set(best.map((x) => (x.s.cite ? `${x.s.text} ${x.s.cite}` : x.s.text)))].join(' ');
}

/** A standalone search question: the follow-up plus the earlier user messages' content words it lacks. */
function standalone(messages: readonly ChatMessage[]): string {
  const users = messages.filter((m) => m.role === 'user');
  const followUp = users.at(-1)?.text.trim() ?? '';
  const have = new Set(wordsOf(followUp));
  const extra = queryWords(
    users
      .slice(0, -1)
      .map((m) => m.text)
      .join(' '),
  )
    .filter((w) => !have.has(w))
    .slice(0, 12);
  return [followUp, ...extra].join(' ').trim();
}

/** The answer: the context's sentences most about the question. */
export function extractiveAnswer(messages: readonly ChatMessage[]): string {
  if (messages[0]?.role === 'system' && /standalone question/i.test(messages[0].text)) return standalone(messages);
  const lastUserAt = messages.findLastIndex((m) => m.role === 'user');
  if (lastUserAt < 0) return NO_ANSWER;
  const lastUser = messages[lastUserAt];
  const cited = citedSentences(messages);
  const pool = (context: readonly ChatMessage[]) =>
    cited.length ? cited : context.flatMap((m) => sentences(m.text).map((text) => ({ text })));
  const before = messages.slice(0, lastUserAt);
  const said = before.at(-1);
  if (lastUser.text.trim().toLowerCase() === 'continue' && said?.role === 'assistant') {
    const earlier = before.slice(0, -1);
    const asked = earlier.findLast((m) => m.role === 'user' && m.text.trim().toLowerCase() !== 'continue');
    const whole = bestSentences(asked?.text ?? said.text, pool(earlier.filter((m) => m !== asked)));
    const so = said.text.trim();
    if (whole.startsWith(so)) return whole.slice(so.length).trim() || NO_ANSWER;
    const rest = whole.split(/(?<=[.!?](?: \[\d+\])?)\s+/).filter((s) => !so.includes(s.replace(/ \[\d+\]$/, '')));
    return rest.join(' ') || NO_ANSWER;
  }
  return bestSentences(lastUser.text, pool(messages.filter((m) => m !== lastUser)));
}

/** A chat prompt's tokens: each message's text plus the chat format's overhead. */
export const promptTokens = (messages: readonly ChatMessage[]) => chatPromptTokens(messages);
