import type { ChatMessage } from '../models/neutral';
import type { HistoryTurn } from './conversation';

/** The instruction that asks the model for a standalone search question (local-chat recognises "standalone question"). */
export const REWRITE_INSTRUCTION =
  'Given the conversation so far and a follow-up question, rewrite the follow-up as a standalone question ' +
  'that can be understood without the conversation, for a document search. Answer with the standalone question only.';

const MAX_REWRITE_TURNS = 6;
const MAX_SEARCH_CHARS = 1000;

/** The messages that ask for the standalone question: the last few turns, then the follow-up. */
export function rewriteMessages(history: readonly HistoryTurn[], query: string): ChatMessage[] {
  const turns = history
    .slice(-MAX_REWRITE_TURNS)
    .flatMap((t): ChatMessage[] => [
      ...(t.user_query ? [{ role: 'user' as const, text: t.user_query }] : []),
      ...(t.response ? [{ role: 'assistant' as const, text: t.response }] : []),
    ]);
  return [{ role: 'system', text: REWRITE_INSTRUCTION }, ...turns, { role: 'user', text: query }];
}

/** The model's rewrite as one search line: its first non-empty line, unquoted, bounded; the query when it said nothing. */
export function cleanRewrite(answer: string, query: string): string {
  const line =
    answer
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const text = line
    .replace(/^(standalone question|question)\s*:\s*/i, '')
    .replace(/^["'“]+|["'”]+$/g, '')
    .trim();
  return (text || query).slice(0, MAX_SEARCH_CHARS);
}

export type SearchTextPlan =
  { kind: 'given'; text: string } | { kind: 'query'; text: string } | { kind: 'rewrite'; messages: ChatMessage[]; fallback: string };

/**
 * What to search with (the spec's `generated_search_text`): the caller's own `gen_search_text`;
 * for a continuation, the question being continued; with history, a standalone question the
 * model writes; else the query itself.
 */
export function planSearchText(opts: {
  query: string;
  continuing: boolean;
  history: readonly HistoryTurn[];
  given?: string;
  prevContext?: string;
  canRewrite: boolean;
}): SearchTextPlan {
  if (opts.given?.trim()) return { kind: 'given', text: opts.given.trim().slice(0, MAX_SEARCH_CHARS) };
  const asked = opts.history.findLast(
    (t) => t.user_query.trim() && t.user_query.trim() !== 'continue' && !t.user_query.startsWith('$'),
  )?.user_query;
  if (opts.continuing) return { kind: 'query', text: (asked ?? opts.prevContext ?? opts.query).slice(0, MAX_SEARCH_CHARS) };
  if (opts.history.length && opts.canRewrite)
    return { kind: 'rewrite', messages: rewriteMessages(opts.history, opts.query), fallback: opts.query };
  return { kind: 'query', text: opts.query.slice(0, MAX_SEARCH_CHARS) };
}
