import { queryWords, wordsOf } from '../shared/text/words';
import type { TextQuery } from './ports';

/**
 * The words of a user's query a full-text match looks for (basic search):
 *
 * - `all`: its content words (words.ts), every one required, each also as a prefix (`clim` finds climate);
 * - `phrase`: all its words, in order, next to each other (`with_exact_search`), at most 64.
 *
 * Undefined when the query has no words at all: it matches nothing.
 */
export function textQuery(query: string, mode: TextQuery['mode']): TextQuery | undefined {
  const words = mode === 'phrase' ? wordsOf(query).slice(0, 64) : queryWords(query);
  return words.length ? { mode, words } : undefined;
}
