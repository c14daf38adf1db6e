import { queryWords, wordsOf } from '../shared/text/words';

/**
 * A user's query as an FTS5 MATCH expression. Every word is quoted, so nothing a caller types is
 * read as FTS5 syntax (column filters, NEAR, parentheses, `*`): a query is always only words.
 *
 * - `all`: every word, each also as a prefix (`"clim"*` finds climate), AND-ed (basic search);
 * - `phrase`: all words, in order, next to each other (basic search `with_exact_search`).
 *
 * Undefined when the query has no words at all: it matches nothing.
 */
export type MatchMode = 'all' | 'phrase';

const quote = (w: string) => `"${w.replace(/"/g, '""')}"`;

export function ftsQuery(query: string, mode: MatchMode): string | undefined {
  if (mode === 'phrase') {
    const words = wordsOf(query).slice(0, 64);
    return words.length ? quote(words.join(' ')) : undefined;
  }
  const words = queryWords(query);
  if (!words.length) return undefined;
  return words.map((w) => `${quote(w)}*`).join(' AND ');
}
