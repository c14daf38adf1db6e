import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens as whole, decode } from 'gpt-tokenizer';
import {
  countAll,
  countTokens,
  cutsOf,
  fitIndex,
  MAX_RUN,
  MAX_TOKEN_BYTES,
  minTokens,
  runningCount,
} from '../../../core/models/prompt/tokens';

const ROOT = join(__dirname, '..', '..', '..');
const plain = { disallowedSpecial: new Set<string>() };
const wholeCount = (text: string) => whole(text, plain);
/** Letters from a fixed generator: a run the tokenizer cannot shorten much. */
const letters = (n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz', seed = 7) => {
  let x = seed;
  return Array.from({ length: n }, () => alphabet[(x = (Math.imul(x, 1103515245) + 12345) >>> 0) % alphabet.length]).join('');
};
const prose =
  readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8') +
  readFileSync(join(ROOT, 'core', 'models', 'models-service.ts'), 'utf8') +
  'Héllo wörld — 中文字符 こんにちは 😀😀\n\n  two  spaces\tand\ttabs\r\nDon\'t "quote" it\'s (x) [y] 12345678 3.14159 camelCase HTTPServer x1y2';

describe('token counts', () => {
  it('MAX_TOKEN_BYTES is the longest token of the vocabulary, in UTF-8 bytes', () => {
    let longest = 0;
    let seen = 0;
    for (let id = 0; id < 200_100; id++) {
      let text: string;
      try {
        text = decode([id]);
      } catch {
        continue; // an id the vocabulary does not use
      }
      seen++;
      longest = Math.max(longest, Buffer.byteLength(text));
    }
    expect(seen).toBeGreaterThan(199_000);
    expect(longest).toBe(MAX_TOKEN_BYTES);
  });

  it("equal gpt-tokenizer's count of the whole text where no run is longer than MAX_RUN (every cut is exact)", () => {
    expect(countTokens(prose)).toBe(wholeCount(prose));
    // Each cut on its own: the two sides counted apart add up to the whole.
    const sample = prose.slice(0, 6000);
    for (const cut of cutsOf(sample, false).slice(0, -1)) {
      expect(wholeCount(sample.slice(0, cut)) + wholeCount(sample.slice(cut))).toBe(wholeCount(sample));
    }
  });

  it('count a long unbroken run in pieces, within 2 % of the whole count (exact for a repeated letter and for white space)', () => {
    for (const run of [letters(20_000), letters(20_000, '-.,!?;:'), 'a'.repeat(20_000), ' '.repeat(20_000)]) {
      const n = countTokens(run);
      expect(Math.abs(n - wholeCount(run))).toBeLessThanOrEqual(wholeCount(run) * 0.02);
    }
    expect(countTokens('a'.repeat(20_000))).toBe(wholeCount('a'.repeat(20_000)));
    expect(countTokens(' '.repeat(20_000))).toBe(wholeCount(' '.repeat(20_000)));
  });

  it('lie between the bounds that need no counting: ceil(bytes / MAX_TOKEN_BYTES) and bytes', () => {
    for (const text of [
      prose,
      letters(50_000),
      ' '.repeat(50_000),
      '-'.repeat(50_000),
      '😀'.repeat(20_000),
      'é'.repeat(30_000),
      '\n'.repeat(10_000),
    ]) {
      const bytes = Buffer.byteLength(text);
      const n = countTokens(text);
      expect(n).toBeGreaterThanOrEqual(minTokens(bytes));
      expect(n).toBeLessThanOrEqual(bytes);
    }
  });

  it('stop once over the limit: a 300,000-letter word counted against 100 tokens stops within one piece of it', () => {
    const n = countTokens(letters(300_000), 100);
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThanOrEqual(100 + MAX_RUN);
    expect(countAll(['one two', letters(300_000)], 50)).toBeLessThanOrEqual(50 + MAX_RUN);
  });

  it("count a special token's text as text, never throwing", () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('fit the longest start or end within a room, cut where the count cuts', () => {
    const text = prose.slice(0, 5000);
    for (const room of [0, 1, 50, 700]) {
      const end = fitIndex(text, room, 'start');
      expect(countTokens(text.slice(0, end))).toBeLessThanOrEqual(room);
      const next = cutsOf(text, false).find((c) => c > end);
      if (next !== undefined) expect(countTokens(text.slice(0, next))).toBeGreaterThan(room);
      const start = fitIndex(text, room, 'end');
      expect(countTokens(text.slice(start))).toBeLessThanOrEqual(room);
    }
    expect(fitIndex(text, 1e9, 'start')).toBe(text.length);
    expect(fitIndex(text, 1e9, 'end')).toBe(0);
  });

  it('keep a running count of a text growing at its end, as counting it whole would', () => {
    const words = prose.slice(0, 4000).split(/(?<=\s)/);
    const running = runningCount();
    let sent = '';
    for (let i = 0; i < words.length; i += 3) {
      const piece = words.slice(i, i + 3).join('');
      expect(running.with(piece)).toBe(countTokens(sent + piece));
      sent += piece;
      expect(running.add(piece)).toBe(countTokens(sent));
    }
  });

  it('count a next piece no further than a limit: a piece of a hundred thousand tokens against a limit of ten is not counted to its end', () => {
    const running = runningCount();
    running.add('Some words first. ');
    const huge = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, `value ${i}`])));
    const whole = running.with(huge);
    const limited = running.with(huge, 10);
    expect(limited).toBeGreaterThan(10);
    expect(limited).toBeLessThan(whole / 10);
  });
});
