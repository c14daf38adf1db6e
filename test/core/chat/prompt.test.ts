import { buildPrompt, numberSources } from '../../../core/chat/prompt';
import { BadRequest } from '../../../core/shared/errors';
import { promptTokens } from '../../../core/models/vendors/local';
import type { Passage } from '../../../core/search/types';

const words = (n: number, w = 'alpha') => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
const passage = (id: string, text: string, fileName: string | null = null): Passage => ({
  objectId: id,
  chunkId: 1,
  chunkIndex: 0,
  text,
  score: 1,
  title: `T${id}`,
  fileName,
});
const history = [
  { user_query: `old ${words(200, 'h')}`, response: words(200, 'r') },
  { user_query: 'recent question', response: 'recent answer' },
];
const parts = (over: Partial<Parameters<typeof buildPrompt>[0]> = {}) => ({
  examples: [{ user_query: 'example q', response: 'example a' }],
  history,
  question: 'What now?',
  files: [],
  search: [],
  ...over,
});

describe('the prompt', () => {
  it('numbers uploaded files first, then search results, each passage once', async () => {
    const s = numberSources([passage('f', 'file text', 'f.pdf')], [passage('d', 'doc text'), passage('f', 'file text')]);
    expect(s.map((x) => [x.citation, x.objectId, x.category])).toEqual([
      [1, 'f', 'InputFile'],
      [2, 'd', 'search'],
    ]);
  });

  it('holds instructions, numbered sources, examples, history and the question, in that order', async () => {
    const sources = numberSources([], [passage('d', 'Doc text.')]);
    const { messages } = await buildPrompt(parts({ instructions: 'Be terse.' }), sources, 10_000);
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[0].text).toBe('Be terse.');
    expect(messages[1].text).toBe('Sources:\n\n[1] Td\nDoc text.');
    expect(messages.at(-1)!.text).toBe('What now?');
  });

  it('drops the oldest history before any source, then the lowest-ranked sources, within the budget', async () => {
    const sources = numberSources(
      [],
      [passage('1', words(150, 'one')), passage('2', words(150, 'two')), passage('3', words(150, 'three'))],
    );
    const all = promptTokens((await buildPrompt(parts(), sources, 100_000)).messages);
    const budget = all - 300;
    const a = await buildPrompt(parts(), sources, budget);
    expect(promptTokens(a.messages)).toBeLessThanOrEqual(budget);
    expect(a.sources).toHaveLength(3);
    expect(a.messages.some((m) => m.text.startsWith('old '))).toBe(false);
    expect(a.messages.some((m) => m.text === 'recent question')).toBe(true);

    const tight = promptTokens((await buildPrompt(parts({ history: [] }), sources, 100_000)).messages) - 100;
    const b = await buildPrompt(parts(), sources, tight);
    expect(promptTokens(b.messages)).toBeLessThanOrEqual(tight);
    expect(b.messages.some((m) => m.text === 'recent question')).toBe(false);
    expect(b.sources.map((s) => s.citation)).toEqual([1, 2]);
  });

  it('cuts the last source it keeps rather than lose every source', async () => {
    const sources = numberSources([], [passage('1', words(600))]);
    const r = await buildPrompt(parts({ history: [], examples: [] }), sources, 300);
    expect(promptTokens(r.messages)).toBeLessThanOrEqual(300);
    expect(r.sources).toHaveLength(1);
    expect(r.sources[0].text.length).toBeGreaterThan(100);
    expect(words(600).startsWith(r.sources[0].text)).toBe(true);
  });

  it('keeps the end of a long answer being continued', async () => {
    const prev = words(800, 'p');
    const r = await buildPrompt(parts({ history: [], examples: [], question: 'continue', prevContext: prev }), [], 400);
    const said = r.messages.find((m) => m.role === 'assistant')!.text;
    expect(prev.endsWith(said)).toBe(true);
    expect(promptTokens(r.messages)).toBeLessThanOrEqual(400);
  });

  it('refuses a question that alone is over the budget', async () => {
    await expect(buildPrompt(parts({ question: words(2000) }), [], 500)).rejects.toThrow(BadRequest);
  });
});
