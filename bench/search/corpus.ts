/**
 * The synthetic corpus of `npm run bench:search-scale`, the same on every run and machine: pseudo
 * words built from syllables, drawn with Zipf-Mandelbrot frequencies (p ∝ 1 / (rank + 2.7), as in
 * English text), in sentences and paragraphs. Each document belongs to a topic (documents are
 * spread evenly over docs / 20 topics) whose five topic words make up about 6% of its words and
 * one of its title words, so a query of two topic words and one or two everyday words has about
 * twenty right answers among many partial matches. Document i is generated from its own seed, so
 * any document can be rebuilt without the others.
 */
export interface SyntheticDoc {
  id: string;
  title: string;
  content: string;
  topic: number;
}

/** splitmix32: a small, well-mixed seeded PRNG giving floats in [0, 1). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}

/** Fisher-Yates, in place. */
function shuffle<T>(xs: T[], r: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

const SYLLABLES =
  'ba be bi bo bu da de di do ka ke ki ko lu la le li lo ma me mi mo na ne ni no pa pe po ra re ri ro sa se si so ta te ti to va ve vi zo tra gre flo stu'.split(
    ' ',
  );
const TOPIC_WORDS = 5;
const TOPIC_SHARE = 0.06;

export function syntheticCorpus(docs: number, opts: { vocabulary?: number; seed?: number } = {}) {
  const seed = opts.seed ?? 20240611;
  const vocabSize = opts.vocabulary ?? 6000;
  const topics = Math.max(10, Math.round(docs / 20));
  const rand = seeded(seed);
  const pick = <T>(xs: readonly T[], r: () => number) => xs[Math.floor(r() * xs.length)];

  const words = new Set<string>();
  const need = vocabSize + topics * TOPIC_WORDS;
  while (words.size < need) words.add(Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(SYLLABLES, rand)).join(''));
  const all = [...words];
  const vocabulary = all.slice(0, vocabSize);
  const topicWords = (t: number) => all.slice(vocabSize + t * TOPIC_WORDS, vocabSize + (t + 1) * TOPIC_WORDS);

  const cdf = new Float64Array(vocabSize);
  let sum = 0;
  for (let r = 0; r < vocabSize; r++) cdf[r] = sum += 1 / (r + 2.7);
  const zipf = (r: () => number) => {
    const x = r() * sum;
    let lo = 0;
    let hi = vocabSize - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };

  /** About 900 words (700 to 1,100): sentences of 8 to 24 words, paragraphs of 3 to 7 sentences. */
  function doc(i: number): SyntheticDoc {
    const r = seeded(seed ^ Math.imul(i + 1, 0x27d4eb2d));
    const topic = i % topics;
    const own = topicWords(topic);
    const word = () => (r() < TOPIC_SHARE ? pick(own, r) : zipf(r));
    const target = 700 + Math.floor(r() * 401);
    const paragraphs: string[] = [];
    for (let n = 0; n < target;) {
      const sentences: string[] = [];
      for (let s = 3 + Math.floor(r() * 5); s > 0 && n < target; s--) {
        const len = Math.min(target - n, 8 + Math.floor(r() * 17));
        const ws = Array.from({ length: len }, word);
        ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
        sentences.push(`${ws.join(' ')}.`);
        n += len;
      }
      paragraphs.push(sentences.join(' '));
    }
    const title = [pick(own, r), zipf(r), zipf(r), zipf(r)].join(' ');
    return { id: `syn-${i}`, title, content: paragraphs.join('\n\n'), topic };
  }

  /** Two words of a random topic and one or two everyday words (Zipf ranks 100 to 3,000), shuffled. */
  function queries(n: number): { text: string; topic: number }[] {
    const r = seeded(seed ^ 0x5bd1e995);
    return Array.from({ length: n }, () => {
      const topic = Math.floor(r() * topics);
      const own = shuffle(topicWords(topic), r);
      const everyday = Array.from({ length: 1 + Math.floor(r() * 2) }, () => vocabulary[100 + Math.floor(r() * 2900)]);
      return { text: shuffle([own[0], own[1], ...everyday], r).join(' '), topic };
    });
  }

  return { docs, topics, doc, queries };
}
