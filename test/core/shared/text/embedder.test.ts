import { cosine, hashingEmbedder } from '../../../../core/shared/text/embedder';

describe('the built-in hashing embedder', () => {
  const e = hashingEmbedder();

  it('names itself and its size, and weighs lightly in fusion', () => {
    expect(e).toMatchObject({ id: 'hashing-words-1024', dimensions: 1024 });
    expect(e.fusionWeight).toBeGreaterThan(0);
    expect(e.fusionWeight).toBeLessThan(0.2);
  });

  it('gives unit vectors, the same for the same text on every call', async () => {
    const [a, b] = await e.embed(['Vitamin D deficiency and bone fractures', 'Vitamin D deficiency and bone fractures']);
    expect(a).toEqual(b);
    expect(cosine(a, a)).toBeCloseTo(1, 5);
  });

  it('ignores case, punctuation and function words', async () => {
    const [a, b] = await e.embed(['The vitamin, and THE bone!', 'vitamin bone']);
    expect(cosine(a, b)).toBeCloseTo(1, 5);
  });

  it('puts a text nearer to one sharing its words than to an unrelated one', async () => {
    const [query, related, unrelated] = await e.embed([
      'vitamin D supplements reduce fractures',
      'Fractures in older adults taking vitamin D supplements were fewer than in the placebo group.',
      'The stock market closed higher on Tuesday after the central bank statement.',
    ]);
    expect(cosine(query, related)).toBeGreaterThan(0.3);
    expect(cosine(query, unrelated)).toBeLessThan(0.1);
  });

  it('gives the zero vector for a text with no words (no NaN)', async () => {
    const [v] = await e.embed(['  ... the of ']);
    expect(Array.from(v).every((x) => x === 0)).toBe(true);
  });
});
