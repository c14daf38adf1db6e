import { chunkText } from '../../../core/search/chunker';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const count = (s: string) => s.split(/\s+/).filter(Boolean).length;

describe('chunkText', () => {
  it('keeps a short text whole, with its offsets', () => {
    const text = '  A short note.\n\nTwo paragraphs.  ';
    expect(chunkText(text)).toEqual([{ index: 0, text: 'A short note.\n\nTwo paragraphs.', start: 2, end: 32 }]);
  });

  it('gives nothing for a text without words', () => {
    expect(chunkText(' \n\n\t ')).toEqual([]);
  });

  it('cuts long text into windows of the target size that overlap by the overlap size', () => {
    const text = words(500);
    const chunks = chunkText(text, { targetWords: 200, overlapWords: 40 });
    expect(chunks.map((c) => count(c.text))).toEqual([200, 200, 180]);
    expect(chunks[1].text.startsWith('w160 ')).toBe(true);
    expect(chunks[2].text.endsWith(' w499')).toBe(true);
    for (const c of chunks) expect(text.slice(c.start, c.end)).toBe(c.text);
  });

  it('ends a window at a paragraph break when one falls in its second half', () => {
    const text = `${words(150, 'a')}\n\n${words(150, 'b')}`;
    const [first, second] = chunkText(text, { targetWords: 200, overlapWords: 20 });
    expect(first.text).toBe(words(150, 'a'));
    expect(second.text.startsWith('a130 ')).toBe(true);
  });

  it('else ends it at a sentence end in its second half', () => {
    const sentence = (n: number, p: string) => `${words(n, p)}.`;
    const text = `${sentence(130, 'a')} ${sentence(130, 'b')}`;
    const [first] = chunkText(text, { targetWords: 200, overlapWords: 0 });
    expect(first.text).toBe(sentence(130, 'a'));
  });

  it('always moves forward, even with an overlap as large as the window', () => {
    const chunks = chunkText(words(10), { targetWords: 3, overlapWords: 5 });
    expect(chunks.length).toBeLessThanOrEqual(10);
    expect(chunks.at(-1)!.text.endsWith('w9')).toBe(true);
  });

  it('handles one enormous input (a 2 MB text)', () => {
    const text = words(300_000);
    const chunks = chunkText(text);
    expect(chunks.length).toBe(Math.ceil((300_000 - 40) / 160));
  });
});
