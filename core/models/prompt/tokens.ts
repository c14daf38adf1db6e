import type * as Tokenizer from 'gpt-tokenizer';

/** Loaded on the first count: its vocabulary costs a few hundred milliseconds, which a process that never counts (the CLI) need not pay. */
let tokenizer: typeof Tokenizer | undefined;
const load = () => (tokenizer ??= require('gpt-tokenizer') as typeof Tokenizer);
const bpeCount: typeof Tokenizer.countTokens = (text, opts) => load().countTokens(text, opts);

/** A server loads the vocabulary once started, so that its first call does not wait for it. */
export const loadTokenizer = (): void => void load();

/**
 * Token counts (the gateway's context-length checks and usage, the chat proxy's prompt fitting),
 * with gpt-tokenizer's default encoding, o200k_base (GPT-4o's), in time linear in the text.
 *
 * gpt-tokenizer first splits text into pre-tokens with a regular expression, then merges each
 * pre-token's bytes pair by pair, in time quadratic in its length: one 200,000-letter word took
 * 20 s. So text is counted in pieces:
 * - some cuts are exact: no pre-token of o200k's split pattern crosses them, so the pieces' counts
 *   add up to the whole's. Before a space that follows a non-space (the pattern holds a space only
 *   as a pre-token's first character or inside an all-white-space one), and between two ASCII
 *   characters where a run of letters or digits ends: a letter or digit, then punctuation (not an
 *   apostrophe, which may start a contraction) or a line break; a letter, then a digit; a digit,
 *   then a letter; a small letter, then a capital;
 * - a longer run without such a cut is cut every MAX_RUN characters (a run of white space only
 *   every MAX_TOKEN_BYTES, the longest white-space token). This is the one approximation: such a
 *   run may count a few tokens more or fewer than whole (measured on 20,000-character runs:
 *   random letters +0.5 %, punctuation +0.7 %, letters repeated and white space exact).
 * Counting stops as soon as it is over the caller's limit, so deciding "too long" costs at most
 * about the limit's worth of text. The text of special tokens (`<|endoftext|>`) counts as text.
 *
 * Bounds that need no counting, true of every count here (each piece is a real encoding): a token
 * is 1 to MAX_TOKEN_BYTES bytes of UTF-8, so a text of b bytes has at most b tokens and at least
 * ceil(b / MAX_TOKEN_BYTES).
 */

/** The longest token of o200k_base, in UTF-8 bytes (128 spaces); test/core/models/tokens.test.ts checks it against the vocabulary. */
export const MAX_TOKEN_BYTES = 128;
/** The longest run counted whole when it holds no exact cut (its BPE costs about MAX_RUN² steps). */
export const MAX_RUN = 64;
/** Pieces are counted together up to about this many characters (fewer calls into the tokenizer). */
const GROUP_CHARS = 2048;

const PLAIN = { disallowedSpecial: new Set<string>() };

/** JavaScript's `\s`, which the split patterns use. */
export function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 160 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const PUNCT = 4;
const BREAK = 5;
/** The ASCII characters' kinds, for the exact cuts. */
const KIND = new Uint8Array(128).map((_, c) => {
  const ch = String.fromCharCode(c);
  if (/[a-z]/.test(ch)) return LOWER;
  if (/[A-Z]/.test(ch)) return UPPER;
  if (/[0-9]/.test(ch)) return DIGIT;
  if (ch === '\n' || ch === '\r') return BREAK;
  return /[\s']/.test(ch) || c < 32 || c === 127 ? 0 : PUNCT;
});

/** Whether no pre-token crosses the point between the characters `p` and `c` (see above). */
function exactBetween(p: number, c: number): boolean {
  if (c === 32) return !isSpace(p);
  if (p >= 128 || c >= 128) return false;
  const a = KIND[p];
  const b = KIND[c];
  if (a === LOWER || a === UPPER) return b === PUNCT || b === BREAK || b === DIGIT || (a === LOWER && b === UPPER);
  return a === DIGIT && (b === PUNCT || b === BREAK || b === LOWER || b === UPPER);
}

/**
 * Whether `i` starts a line's indentation: a line break before it, then spaces or tabs up to a
 * character that is not white space (or the end), with no other line break among them. Every
 * pre-token holding that line break ends with it (`\s*[\r\n]+`, or punctuation's `[\r\n/]*`),
 * so none crosses `i`: deeply indented code, punctuation and white space only, is cut exactly
 * here instead of every MAX_RUN characters. The scan stops at the run's end, so each character is
 * looked at once more at most.
 */
function indentAfterBreak(text: string, i: number): boolean {
  const p = text.charCodeAt(i - 1);
  if (p !== 10 && p !== 13) return false;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 10 || c === 13) return false;
    if (!isSpace(c)) return j > i;
  }
  return false;
}

/** The fewest tokens a text of `bytes` UTF-8 bytes can be (every count here is at least this). */
export const minTokens = (bytes: number) => Math.ceil(bytes / MAX_TOKEN_BYTES);

/**
 * Where `text` is cut before counting, ascending, ending with its length: every forced cut (a run
 * reaching MAX_RUN), and the exact cuts every GROUP_CHARS characters or so (`grouped`) or all of
 * them (each piece alone).
 */
export function cutsOf(text: string, grouped = true): number[] {
  const ends: number[] = [];
  let start = 0;
  let runStart = 0;
  let runSpace = text.length > 0 && isSpace(text.charCodeAt(0));
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = isSpace(c);
    if (exactBetween(text.charCodeAt(i - 1), c) || indentAfterBreak(text, i)) {
      if (!grouped || i - start >= GROUP_CHARS) ends.push((start = i));
      runStart = i;
      runSpace = space;
    } else if (i - runStart >= (runSpace && space ? MAX_TOKEN_BYTES : MAX_RUN) && (c & 0xfc00) !== 0xdc00) {
      ends.push((start = runStart = i));
      runSpace = space;
    } else {
      runSpace &&= space;
    }
  }
  if (text.length) ends.push(text.length);
  return ends;
}

const countPiece = (text: string, from: number, to: number) => bpeCount(text.slice(from, to), PLAIN);

/** The tokens of `text`; once over `limit`, some number over it (counting stops there). */
export function countTokens(text: string, limit = Infinity): number {
  let n = 0;
  let from = 0;
  for (const to of cutsOf(text)) {
    n += countPiece(text, from, to);
    if (n > limit) return n;
    from = to;
  }
  return n;
}

/** The tokens of several texts together, stopping once over `limit`. */
export function countAll(texts: readonly string[], limit = Infinity): number {
  let n = 0;
  for (const t of texts) {
    n += countTokens(t, limit - n);
    if (n > limit) return n;
  }
  return n;
}

/**
 * Where to cut `text` so that its start (`from` 'start': the end of that start) or its end (`from`
 * 'end': the start of that end) is the longest whose tokens fit in `room`. It is cut where the count
 * cuts (before a space, where a word ends, inside a long run): those pieces' counts add up, so this
 * is linear too and agrees with countTokens.
 */
export function fitIndex(text: string, room: number, from: 'start' | 'end'): number {
  const bounds = [0, ...cutsOf(text, false)];
  let n = 0;
  if (from === 'start') {
    for (let k = 1; k < bounds.length; k++) {
      n += countPiece(text, bounds[k - 1], bounds[k]);
      if (n > room) return bounds[k - 1];
    }
    return text.length;
  }
  for (let k = bounds.length - 1; k > 0; k--) {
    n += countPiece(text, bounds[k - 1], bounds[k]);
    if (n > room) return bounds[k];
  }
  return 0;
}

/**
 * The count of a text that grows at its end (an answer as it streams): only what follows its last
 * cut is counted again, so counting a long answer piece by piece stays linear.
 */
export function runningCount() {
  let counted = 0;
  let tail = '';
  const split = (text: string) => {
    const cuts = cutsOf(text, false);
    const last = cuts.length > 1 ? cuts[cuts.length - 2] : 0;
    return { head: text.slice(0, last), tail: text.slice(last) };
  };
  return {
    /** The tokens there would be with `piece` added; once over `limit`, some number over it (a long piece is not counted to its end). */
    with: (piece: string, limit = Infinity) => counted + countTokens(tail + piece, limit - counted),
    add(piece: string): number {
      const s = split(tail + piece);
      counted += countTokens(s.head);
      tail = s.tail;
      return counted + countTokens(tail);
    },
  };
}

/** A chat prompt's tokens as OpenAI's chat format counts them: each message's text (`texts`, counted when not given) plus 4, plus 3. */
export const chatPromptTokens = (messages: readonly { text: string }[], texts?: number) =>
  (texts ?? countAll(messages.map((m) => m.text))) + 4 * messages.length + 3;
