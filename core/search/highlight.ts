import { wordsOf } from '../shared/text/words';

/**
 * Snippets and highlights for result items. The index stems words (porter); here a word of the
 * text matches a query word when it starts with the query word less its last two letters (at least
 * four): `biomaterials` for `biomaterial`, `climatic` for `climate`. Highlight fragments are
 * HTML-escaped text with matches wrapped in `<em>`, so they are safe to put in a page.
 */
export type WordTest = (word: string) => boolean;

const stemOf = (w: string) => (w.length <= 4 ? w : w.slice(0, Math.max(4, w.length - 2)));

export function matcher(queryWords: readonly string[]): WordTest {
  const stems = queryWords.map(stemOf);
  const exact = new Set(queryWords);
  return (word) => {
    const w = word.toLowerCase();
    return exact.has(w) || stems.some((s) => s.length >= 4 && w.startsWith(s));
  };
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Where the first matching word starts, or -1. */
function firstMatch(text: string, test: WordTest): number {
  for (const m of text.matchAll(WORD)) if (test(m[0])) return m.index;
  return -1;
}

/** About `max` characters of `text` around its first match (its start when nothing matches), cut at spaces. */
export function snippet(text: string, test: WordTest, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const at = firstMatch(flat, test);
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(max / 3));
  if (start > 0) start = flat.indexOf(' ', start) + 1 || start;
  let end = Math.min(flat.length, start + max);
  if (end < flat.length) end = flat.lastIndexOf(' ', end) > start ? flat.lastIndexOf(' ', end) : end;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `text` around its first match, escaped, with every match wrapped in `<em>`; undefined when nothing matches. */
export function highlightFragment(text: string, test: WordTest, max = 240): string | undefined {
  if (firstMatch(text, test) < 0) return undefined;
  const piece = snippet(text, test, max);
  let out = '';
  let last = 0;
  for (const m of piece.matchAll(WORD)) {
    if (!test(m[0])) continue;
    out += `${escapeHtml(piece.slice(last, m.index))}<em>${escapeHtml(m[0])}</em>`;
    last = m.index + m[0].length;
  }
  return out + escapeHtml(piece.slice(last));
}

/** Share of the query's words found in `text` (the re-ranker's coverage signal), matched as `matcher` matches. */
export function coverage(text: string, queryWords: readonly string[]): number {
  if (!queryWords.length) return 0;
  // One pass over the text's distinct words: the words themselves, and their starts of the
  // lengths the query's stems have, so each query word is two set lookups (the re-ranker runs
  // this for every candidate of every query).
  const present = new Set(wordsOf(text));
  const stems = queryWords.map(stemOf);
  const lengths = [...new Set(stems.filter((s) => s.length >= 4).map((s) => s.length))];
  const starts = new Set<string>();
  for (const w of present) for (const n of lengths) if (w.length >= n) starts.add(w.slice(0, n));
  let found = 0;
  for (let i = 0; i < queryWords.length; i++) {
    if (present.has(queryWords[i]) || (stems[i].length >= 4 && starts.has(stems[i]))) found++;
  }
  return found / queryWords.length;
}
