/**
 * M. F. Porter's suffix stripper (1980, "An algorithm for suffix stripping") as SQLite's FTS5
 * `porter` tokenizer applies it, so a JS index and an FTS5 index hold the same terms. Departures
 * from the paper, each found by comparing with FTS5 (test/core/shared/text/porter.test.ts):
 * - the word is its UTF-8 bytes: a token shorter than 3 or longer than 64 bytes is left alone, and
 *   every non-ASCII byte (like every digit) is a consonant, so "αs" stems to "α";
 * - a suffix is stripped only from a longer word: "eed" is E+ED (stem "e"), "ies" is IE+S ("ie");
 * - *d counts a final YY as a double consonant, whatever precedes it ("ayying" to "ai");
 * - step 2 has Porter's later rules: BLI -> BLE in place of ABLI -> ABLE, and LOGI -> LOG.
 */
const MIN_BYTES = 3;
const MAX_BYTES = 64;

type Rule = readonly [suffix: string, replacement: string];

const STEP2: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: readonly Rule[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];
const STEP4: readonly Rule[] = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
].map((s) => [s, ''] as const);

// Within a step only the rule with the longest matching suffix is considered (paper, section 3),
// its condition deciding alone: "ement" with m = 1 is not then tried as MENT or ENT.
const longestFirst = (rules: readonly Rule[]) => [...rules].sort((a, b) => b[0].length - a[0].length);
const [step2, step3, step4] = [STEP2, STEP3, STEP4].map(longestFirst);

const VOWELS = 'aeiou';

/** Paper: a consonant is not a, e, i, o, u, nor a y that follows a consonant. */
function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (VOWELS.includes(c)) return false;
  return c !== 'y' || i === 0 || !isConsonant(w, i - 1);
}

/** m in [C](VC)^m[V] of w[0, end). */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i === end) break;
    m++;
    while (i < end && isConsonant(w, i)) i++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

/** *d: the stem ends with a double consonant; FTS5 counts a final YY as one, whatever precedes it. */
const endsDouble = (w: string) => {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && !VOWELS.includes(w[n - 1]);
};

const ends = (w: string, suffix: string) => w.length > suffix.length && w.endsWith(suffix);

/** *o: the stem ends cvc, the second c not w, x or y. */
const endsCvc = (w: string) => {
  const n = w.length;
  return n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !'wxy'.includes(w[n - 1]);
};

function step1a(w: string): string {
  if (ends(w, 'sses') || ends(w, 'ies')) return w.slice(0, -2);
  if (w.endsWith('ss') || !ends(w, 's')) return w;
  return w.slice(0, -1);
}

function step1b(w: string): string {
  if (ends(w, 'eed')) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  const cut = ends(w, 'ed') ? 2 : ends(w, 'ing') ? 3 : 0;
  if (!cut || !hasVowel(w, w.length - cut)) return w;
  const s = w.slice(0, -cut);
  if (s.endsWith('at') || s.endsWith('bl') || s.endsWith('iz')) return `${s}e`;
  if (endsDouble(s) && !'lsz'.includes(s[s.length - 1])) return s.slice(0, -1);
  return measure(s, s.length) === 1 && endsCvc(s) ? `${s}e` : s;
}

const step1c = (w: string) => (ends(w, 'y') && hasVowel(w, w.length - 1) ? `${w.slice(0, -1)}i` : w);

function applyRules(w: string, rules: readonly Rule[], minMeasure: number): string {
  const rule = rules.find(([suffix]) => ends(w, suffix));
  if (!rule) return w;
  const stem = w.slice(0, w.length - rule[0].length);
  if (measure(stem, stem.length) < minMeasure) return w;
  if (rule[0] === 'ion' && !/[st]$/.test(stem)) return w;
  return stem + rule[1];
}

function step5(w: string): string {
  if (ends(w, 'e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w.slice(0, -1)))) w = w.slice(0, -1);
  }
  return w.endsWith('ll') && measure(w, w.length) > 1 ? w.slice(0, -1) : w;
}

const stemBytes = (w: string) => step5(applyRules(applyRules(applyRules(step1c(step1b(step1a(w))), step2, 1), step3, 1), step4, 2));

const CACHE_LIMIT = 50_000;
const cache = new Map<string, string>();

/** The FTS5 porter stem of one lower-cased unicode61 token. */
export function porterStem(word: string): string {
  if (word.length < MIN_BYTES && (word.length < 2 || (word.charCodeAt(0) | word.charCodeAt(1)) < 0x80)) return word;
  let stem = cache.get(word);
  if (stem !== undefined) return stem;
  // eslint-disable-next-line no-control-regex -- ASCII is U+0000 to U+007F, its control characters included
  const ascii = /^[\x00-\x7f]*$/.test(word);
  const bytes = ascii ? word : Buffer.from(word, 'utf8').toString('latin1');
  if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) stem = word;
  else stem = ascii ? stemBytes(bytes) : Buffer.from(stemBytes(bytes), 'latin1').toString('utf8');
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(word, stem);
  return stem;
}
