import { coverage, matcher } from '../../../core/search/highlight';
import { wordsOf } from '../../../core/shared/text/words';

/** The definition: the share of query words some word of the text matches as highlights match. */
const byDefinition = (text: string, q: string[]) => (q.length ? q.filter((w) => wordsOf(text).some(matcher([w]))).length / q.length : 0);

describe("the re-ranker's coverage", () => {
  it('counts exact words and words sharing a stem (the query word less two letters, at least four)', () => {
    expect(coverage('Biomaterials for climatic models', ['biomaterial', 'climate', 'model', 'cat'])).toBe(0.75);
    expect(coverage('', ['any'])).toBe(0);
    expect(coverage('text', [])).toBe(0);
  });

  it('agrees with the matcher on varied texts and queries', () => {
    const vocab = [
      'cell',
      'cells',
      'cellular',
      'gene',
      'genes',
      'genetic',
      'genome',
      'dna',
      'rna',
      'protein',
      'proteins',
      'mouse',
      'mice',
      'tumor',
      'tumour',
      'ab',
      'abc',
      'abcd',
      'abcde',
    ];
    let seed = 7;
    const pick = () => vocab[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % vocab.length];
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: 1 + (i % 17) }, pick)
        .join(' ')
        .toUpperCase();
      const q = [...new Set(Array.from({ length: 1 + (i % 5) }, pick))];
      expect(coverage(text, q)).toBeCloseTo(byDefinition(text, q), 10);
    }
  });
});
