import type { TextQuery } from '../ports';

/**
 * A text query as an FTS5 MATCH expression. Every word is quoted, so nothing a caller types is
 * read as FTS5 syntax (column filters, NEAR, parentheses, `*`): a query is always only words.
 */
const quote = (w: string) => `"${w.replace(/"/g, '""')}"`;

export const ftsMatch = (q: TextQuery): string =>
  q.mode === 'phrase' ? quote(q.words.join(' ')) : q.words.map((w) => `${quote(w)}*`).join(' AND ');
