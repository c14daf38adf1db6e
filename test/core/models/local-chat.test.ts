import type { ChatMessage } from '../../../core/models/neutral';
import { extractiveAnswer, NO_ANSWER, localChat } from '../../../core/models/vendors/local';

const sources: ChatMessage = {
  role: 'system',
  text: 'Sources:\n\n[1] Aspirin\nAspirin reduces fever. Its side effects include stomach upset.\n\n[2] Penguins\nEmperor penguins breed in winter. The male keeps the egg warm.',
};
const instructions: ChatMessage = { role: 'system', text: 'Answer from the numbered sources and cite them like [1].' };
const ask = (text: string): ChatMessage => ({ role: 'user', text });

describe('local-chat', () => {
  it('answers from the sentences of the prompt most about the question', () => {
    expect(extractiveAnswer([{ role: 'system', text: 'Glaciers melt when it is warm. Cats purr.' }, ask('Why do glaciers melt?')])).toBe(
      'Glaciers melt when it is warm.',
    );
    expect(extractiveAnswer([{ role: 'system', text: 'Cats purr.' }, ask('Why do glaciers melt?')])).toBe(NO_ANSWER);
  });

  it('answers from numbered sources only, citing each sentence, and never from the instructions', () => {
    const answer = extractiveAnswer([instructions, sources, ask('What are the side effects of aspirin?')]);
    expect(answer).toBe('Aspirin reduces fever. [1] Its side effects include stomach upset. [1]');
    expect(extractiveAnswer([instructions, sources, ask('Which sources cite numbers?')])).toBe(NO_ANSWER);
  });

  it('continues an answer that was cut off, from where it stopped', () => {
    const whole = extractiveAnswer([instructions, sources, ask('How do penguins keep the egg warm in winter?')]);
    const said = whole.slice(0, whole.indexOf(' ', 20));
    const rest = extractiveAnswer([
      instructions,
      sources,
      ask('How do penguins keep the egg warm in winter?'),
      { role: 'assistant', text: said },
      ask('continue'),
    ]);
    expect(`${said} ${rest}`).toBe(whole);
  });

  it('rewrites a follow-up as a standalone question when asked to', () => {
    const q = extractiveAnswer([
      { role: 'system', text: 'Rewrite the follow-up as a standalone question.' },
      ask('Tell me about aspirin'),
      { role: 'assistant', text: 'It is a drug.' },
      ask('What are its side effects?'),
    ]);
    expect(q.startsWith('What are its side effects? ')).toBe(true);
    expect(q).toContain('aspirin');
    expect(q).not.toContain('drug');
  });

  it('stops at max tokens with finish reason length, and counts the tokens it used', async () => {
    const s = await localChat().chat({
      model: 'local-chat',
      messages: [instructions, sources, ask('What are the side effects of aspirin?')],
      maxTokens: 12,
    });
    let text = '';
    for await (const p of s.pieces) text += p;
    const done = await s.done;
    expect(done.finishReason).toBe('length');
    expect(done.usage.completionTokens).toBeLessThanOrEqual(12);
    expect(text.length).toBeGreaterThan(0);
  });
});
