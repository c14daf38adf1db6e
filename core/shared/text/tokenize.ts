import { porterStem } from './porter';

/**
 * unicode61 as SQLite FTS5 runs it with `remove_diacritics 2`, its tables measured from SQLite 3.53
 * by tokenizing every code point (test/core/shared/text/porter.test.ts checks them all again):
 * - SEPARATORS end a token: SQLite's Unicode is older than Node's, so it keeps code points that
 *   were unassigned then (and the private-use planes) as token characters;
 * - DIACRITICS (25 combining marks) continue a token but vanish from it, and cannot begin one;
 * - CASE_FOLDS lower-case letters by SQLite's own table (µ to μ, ς to σ, but not Cherokee);
 * - a letter whose canonical decomposition is an ASCII letter plus combining marks becomes that
 *   ASCII letter (é to e, Ǻ to a, the Kelvin sign to k); SQLite's table lacks only Ǡ and ǡ. Greek,
 *   Cyrillic and other scripts keep their accents.
 */
const SEP = -1;
const DROP = -2;

/** Ranges of code points, base 36: gap after the previous range's end, then length - 1. */
const SEPARATORS = [
  '0,1b a,6 q,5 q,1a 1,6 2,0 1,2 2,0 3,0 n,0 v,0 cq,3 c,d 5,6 1,0 1,g 5,0 7,1 1,0 1,8 1,6 6,3 2,0',
  '2,1p 5,0 8,0 5,1 1,0 32,0 3v,7 5s,5 15,1 4,0 1,1i 17,1 b,4 1,l 2,1 17,k a,3 2,0 2r,0 1,e 2,6',
  'f,1 1,d 1,0 1,0 u,q 2j,a 1m,8 2,3 s,3 1,8 1,2 1,4 2,e q,2 2,0 3p,q 1,3 1i,2 1,h 1,6 a,3 a,0',
  'g,2 1k,0 1,6 2,1 2,2 9,0 a,1 e,1 6,1 5,2 1k,0 1,4 4,1 2,2 3,0 u,1 3,0 b,2 1k,0 1,7 1,2 1,2 k,1',
  'c,1 f,2 1k,0 1,6 2,1 2,2 8,1 a,1 c,0 h,0 1n,4 3,2 1,3 9,0 r,7 6,2 1m,6 1,2 1,3 7,1 b,1 r,0 2,1',
  '1k,0 1,6 1,2 1,3 7,1 b,1 u,1 1m,6 1,2 1,3 9,0 a,1 l,0 8,1 1y,0 4,5 1,0 1,7 i,2 1o,0 2,6 4,0',
  '7,8 a,1 2d,0 2,5 1,1 b,5 1f,u k,b 1d,m 5,a 1,z 1,e 1,c 28,j b,5 6,3 4,2 1,2 2,6 3,3 d,b 1,0',
  'a,5 2j,0 gx,b 13,9 2u,0 h8,1 h,0 q,1 26,2 10,2 t,4 r,1 u,1 1s,y 1,3 1,0 y,e 4a,0 3a,b 4,b 4,0',
  '3,1 2y,g 7,1 k,x n,4 2,1 1h,9 1,s 2,0 w,6 1,5 2a,4 1b,g l,y 3,2 u,c 1k,d 8,3 10,j 3,4 1q,1',
  '1s,7 8,o 4,0 4,2 5n,12 l,3 cd,0 1,2 b,2 d,2 d,2 d,1 1,2s 5,5 a,4 b,4 h,p m,w f,1 1,3 1,1 a,0',
  '1,2 5,5 1,0 1,0 1,0 4,0 b,1 4,4 5,3 1,0 1s,gz c,12 p,a 29,25 m,e7 1,38 u,qg 3,9 az,5 4,2 7,3',
  '1,1 34,0 e,0 2o,26 1,b 1w,p 1,2g c,5x q,b 4,4 3,o 9,6 5,1 5,2 2h,3 3,0 2i,0 44,1 4,9 w,z s,u',
  'b,t 8,0 f,v a,12 f,1q 1,73 534,1r h3k,1i 1j,1 7h,2 2n,f w,0 28,7 8,m 9,1 2v,1 3b,0 3,0 4,0 n,8',
  'a,3 1m,3 8,1 1e,g 9,1 g,h 6,2 17,9 n,c b,0 w,3 1b,q g,1 21,d c,0 8,1 e,3 n,2 1,0 1g,0 1,2 2,1',
  '5,1 1,0 s,1 b,6 3,1 6k,a 8pe,1kv 5cu,0 a,0 3s,f ak,1 58,1 2,p 6,6 9,y 1,i 1,3 43,0 1,e a,6 q,5',
  'q,a 3e,6 1,6 a,6 74,2 1g,8 1l,g 6,b 1g,19 bl,0 1c,0 w6,0 5j,0 v,0 5d,2 1,1 5,3 14,2 4,0 g,8',
  '12,0 55,6 xs,2 1h,l 1e,2 19,h 1q,2 10,d b,3 1o,2 1c,d 4,3 yq,c 2pk,3 esd,19 g,3 j1p,6t a,12',
  '2,50 y,1x 56,2e oa,0 p,0 v,0 p,0 v,0 p,0 v,0 p,0 v,0 p,0 4ks,1 7i,17 4,2r c,e 2,d 2,e 1,e 1c,u',
  '1,1n 4,16 23,s d,16 5,8 7,1 4u,w f,5 1,1x 3,j c,10 1,4 l,g f,1q 1,0 1,51 1,3 3,1p 2,3 c,n',
  '43,1x 4,a 1c,1x 1m,37 gwi5,0 u,2n 3k,6n',
].join(' ');
/** Runs of code points, base 36: gap after the previous run's start, count, stride, then delta. */
const CASE_FOLDS = [
  '1t,q,1,w 38,1,1,lj h,p,1,w 22,i,2,1 1b,2,2,1 b,f,2,1 1h,1,1,-7g 2,1,1,5u 1,2,2,1 4,1,1,5q',
  '1,1,1,1 2,2,1,5p 2,1,1,1 3,1,1,27 1,1,1,5m 1,1,1,5n 1,1,1,1 2,1,1,5p 1,1,1,5r 2,1,1,5v',
  '1,1,1,5t 1,1,1,1 4,1,1,5v 1,1,1,5x 2,1,1,5y 3,2,2,1 4,1,1,62 1,1,1,1 2,1,1,62 3,1,1,1 2,1,1,62',
  '3,2,1,61 2,2,2,1 4,1,1,63 1,1,1,1 4,1,1,1 8,1,1,2 1,1,1,1 2,1,1,2 1,1,1,1 2,1,1,2 1,1,1,1',
  'l,a,2,1 h,1,1,2 5,1,1,-2p 1,1,1,-1k 5,h,2,1 10,1,1,-3m 2,2,2,1 o,1,1,8bv 1,1,1,1 2,1,1,-4j',
  '1,1,1,8bs 3,1,1,1 2,1,1,-5f 1,1,1,1x 1,1,1,1z 1,5,2,1 8a,2,2,1 6,1,1,1 g,1,1,12 2,3,1,11',
  '4,1,1,1s 2,2,1,1r 3,h,1,w i,9,1,w v,1,1,1 d,1,1,8 1,1,1,-u 1,1,1,-p 4,1,1,-f 1,1,1,-m 2,c,2,1',
  'o,1,1,-1i 1,1,1,-1c 3,1,1,-1o 1,1,1,-1s 2,1,1,1 2,1,1,-7 1,1,1,1 3,3,1,-3m 3,g,1,28 g,w,1,w',
  '28,1c,2,1 2o,1,1,f 1,7,2,1 f,18,2,1 2p,12,1,1c 29b,12,1,5ls 13,1,1,5ls 6,1,1,5ls 2q6,1,1,-5yg',
  '3,1,1,-5vj 2k,3,2,1 e,8,1,-8 g,6,1,-8 g,8,1,-8 g,8,1,-8 g,6,1,-8 h,4,2,-8 f,8,1,-8 w,8,1,-8',
  'g,8,1,-8 g,8,1,-8 g,2,1,-8 2,2,1,-22 2,1,1,-9 2,1,1,-5j9 a,4,1,-2e 4,1,1,-9 c,2,1,-8 2,2,1,-2s',
  'e,2,1,-8 2,2,1,-34 2,1,1,-7 c,2,1,-3k 2,2,1,-3i 2,1,1,-9 8a,1,1,-5st c,1,1,s 1a,g,1,g z,1,1,1',
  '22l,1b,1,1c 2o,1,1,1 2,1,1,-8af 1,1,1,-2xy 1,1,1,-89z 3,3,2,1 6,1,1,-8bg 1,1,1,-8al 1,1,1,-8bj',
  '1,1,1,-8bi 2,1,1,1 3,1,1,1 9,2,1,-8cf 2,1e,2,1 2z,2,2,1 7,1,1,1 nym,n,2,1 1s,c,2,1 4i,7,2,1',
  'g,v,2,1 1z,2,2,1 4,1,1,-r9g 1,5,2,1 d,1,1,1 2,1,1,-wmg 3,2,2,1 g,5,2,1 a,1,1,-wn8 h9z,q,1,w',
  'yn,14,1,14',
].join(' ');
const DIACRITICS = [
  0x300, 0x301, 0x302, 0x303, 0x304, 0x306, 0x307, 0x308, 0x309, 0x30a, 0x30b, 0x30c, 0x30f, 0x311, 0x31b, 0x323, 0x324, 0x325, 0x326,
  0x327, 0x328, 0x32d, 0x32e, 0x330, 0x331,
];
const KEEPS_DIACRITICS = [0x1e0, 0x1e1];

const decode = (table: string) => table.split(' ').map((run) => run.split(',').map((n) => parseInt(n, 36)));

/** What each BMP code unit becomes inside a token: a code unit, SEP or DROP. */
const FOLD = new Int32Array(0x10000);
/** Above the BMP: separator ranges as [start, end] pairs, and the Deseret case folds. */
const ASTRAL_SEPARATORS: number[] = [];
const ASTRAL_FOLDS = new Map<number, number>();

{
  for (let c = 0; c < 0x10000; c++) FOLD[c] = c;
  let at = 0;
  for (const [gap, count, stride, delta] of decode(CASE_FOLDS)) {
    at += gap;
    for (let k = 0, c = at; k < count; k++, c += stride) {
      if (c < 0x10000) FOLD[c] = c + delta;
      else ASTRAL_FOLDS.set(c, c + delta);
    }
  }
  for (let c = 0x80; c < 0x10000; c++) {
    const nfd = String.fromCharCode(c).normalize('NFD');
    if (/^[A-Za-z][\u0300-\u036f]*$/.test(nfd) && !KEEPS_DIACRITICS.includes(c)) FOLD[c] = nfd.charCodeAt(0) | 0x20;
  }
  for (const c of DIACRITICS) FOLD[c] = DROP;
  let end = -1;
  for (const [gap, span] of decode(SEPARATORS)) {
    const start = end + 1 + gap;
    end = start + span;
    for (let c = start; c <= Math.min(end, 0xffff); c++) FOLD[c] = SEP;
    if (end > 0xffff) ASTRAL_SEPARATORS.push(Math.max(start, 0x10000), end);
  }
}

/** The folded code point of the surrogate pair at text[i]; SEP for a lone surrogate, which reaches SQLite as U+FFFD. */
function astralAt(text: string, i: number): number {
  const hi = text.charCodeAt(i);
  const lo = text.charCodeAt(i + 1);
  if (hi < 0xd800 || hi > 0xdbff || !(lo >= 0xdc00 && lo <= 0xdfff)) return SEP;
  const cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
  let a = 0;
  let b = ASTRAL_SEPARATORS.length / 2;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (ASTRAL_SEPARATORS[2 * mid + 1] < cp) a = mid + 1;
    else b = mid;
  }
  if (a < ASTRAL_SEPARATORS.length / 2 && ASTRAL_SEPARATORS[2 * a] <= cp) return SEP;
  return ASTRAL_FOLDS.get(cp) ?? cp;
}

function foldToken(text: string, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    const f = FOLD[c];
    if (f === SEP) out += String.fromCodePoint(astralAt(text, i++));
    else if (f !== DROP) out += String.fromCharCode(f);
  }
  return out;
}

/**
 * The terms FTS5 indexes for `text` with `tokenize = 'porter unicode61 remove_diacritics 2'`, in
 * order, repeats included: a query and a passage tokenized here match the FTS5 index term for term.
 */
export function tokens(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const first = FOLD[text.charCodeAt(i)];
    if (first === DROP || (first === SEP && (text.charCodeAt(i) < 0xd800 || astralAt(text, i) === SEP))) {
      i++;
      continue;
    }
    // Surrogates are SEP in FOLD: astralAt reads a pair whole, and rejects a lone one.
    const start = i;
    let ascii = true;
    let unchanged = true;
    while (i < n) {
      const c = text.charCodeAt(i);
      const f = FOLD[c];
      if (f === c) {
        if (c >= 0x80) ascii = false;
        i++;
      } else if (f !== SEP) {
        if (c >= 0x80) ascii = false;
        unchanged = false;
        i++;
      } else if (c >= 0xd800 && astralAt(text, i) !== SEP) {
        ascii = unchanged = false;
        i += 2;
      } else {
        break;
      }
    }
    const raw = text.slice(start, i);
    out.push(porterStem(unchanged ? raw : ascii ? raw.toLowerCase() : foldToken(text, start, i)));
  }
  return out;
}
