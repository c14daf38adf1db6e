import { openModelsDb, sqliteResponseStore } from '../../../core/models/sqlite';
import {
  ConversationTooLarge,
  ItemNotFound,
  PreviousResponseNotFound,
  ResponseNotFound,
  storedResponses,
} from '../../../core/models/answers/stored-responses';
import { ResponsesRequest } from '../../../core/models/vendors/openai';
import { testClock } from '../../shared/helpers';

const DAY = 86_400_000;
const read = (body: object) => ResponsesRequest.parse({ model: 'm', ...body });
const answer = (id: string, text: string) => ({
  id,
  object: 'response',
  output: [
    { id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
  ],
});

/** The stored responses' rules over models.db, on a test clock: chains, references, expiry, bounds. */
describe('stored responses', () => {
  const setup = (maxBytes = 1 << 20) => {
    const clock = testClock();
    const db = openModelsDb(':memory:');
    return { clock, db, stored: storedResponses({ store: sqliteResponseStore(db), clock, ttlMs: 30 * DAY, maxBytes }) };
  };

  it('continues a chain: the previous conversation and answer, then the new input, recursively; instructions stay behind', async () => {
    const { stored, db } = setup();
    const first = read({ instructions: 'Be brief.', input: 'one' });
    const c1 = await stored.conversation('t', first);
    expect(c1).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'one' }] }]);
    await stored.keep('t', { id: 'resp_1', input: c1, response: answer('1', 'uno') });
    const c2 = await stored.conversation('t', read({ previous_response_id: 'resp_1', input: 'two' }));
    await stored.keep('t', { id: 'resp_2', input: c2, response: answer('2', 'dos') });
    const c3 = await stored.conversation(
      't',
      read({
        previous_response_id: 'resp_2',
        input: [
          { type: 'item_reference', id: 'msg_1' },
          { role: 'user', content: 'three' },
        ],
      }),
    );
    const texts = c3.map((i) =>
      i.type === 'message' ? `${i.role}:${i.content.map((p) => ('text' in p ? p.text : '')).join('')}` : i.type,
    );
    expect(texts).toEqual(['user:one', 'assistant:uno', 'user:two', 'assistant:dos', 'assistant:uno', 'user:three']);
    // Kept with an id on every item, the answer's items under their own.
    expect((await stored.get('t', 'resp_2')).input.map((i) => i.id)).toEqual([
      expect.stringMatching(/^msg_/),
      'msg_1',
      expect.stringMatching(/^msg_/),
    ]);
    db.close();
  });

  it('names what it cannot find, for the tenant asking', async () => {
    const { stored, db } = setup();
    await stored.keep('t', { id: 'resp_1', input: [], response: answer('1', 'uno') });
    await expect(stored.conversation('u', read({ previous_response_id: 'resp_1', input: 'x' }))).rejects.toThrow(PreviousResponseNotFound);
    await expect(stored.conversation('u', read({ input: [{ type: 'item_reference', id: 'msg_1' }] }))).rejects.toThrow(ItemNotFound);
    await expect(stored.get('u', 'resp_1')).rejects.toThrow(ResponseNotFound);
    await expect(stored.delete('u', 'resp_1')).rejects.toThrow(ResponseNotFound);
    await stored.delete('t', 'resp_1');
    await expect(stored.get('t', 'resp_1')).rejects.toThrow(ResponseNotFound);
    db.close();
  });

  it('forgets a response once its time has passed, and prunes it', async () => {
    const { stored, clock, db } = setup();
    await stored.keep('t', { id: 'resp_1', input: [], response: answer('1', 'uno') });
    clock.advance(30 * DAY - 1);
    expect((await stored.get('t', 'resp_1')).id).toBe('resp_1');
    expect(await stored.prune()).toBe(0);
    clock.advance(1);
    await expect(stored.get('t', 'resp_1')).rejects.toThrow(ResponseNotFound);
    await expect(stored.conversation('t', read({ previous_response_id: 'resp_1', input: 'x' }))).rejects.toThrow(PreviousResponseNotFound);
    await expect(stored.conversation('t', read({ input: [{ type: 'item_reference', id: 'msg_1' }] }))).rejects.toThrow(ItemNotFound);
    expect(await stored.prune()).toBe(1);
    db.close();
  });

  it('refuses to store a conversation over the bound, unless store is false', async () => {
    const { stored, db } = setup(1000);
    const long = 'word '.repeat(300);
    await expect(stored.conversation('t', read({ input: long }))).rejects.toThrow(ConversationTooLarge);
    expect(await stored.conversation('t', read({ input: long, store: false }))).toHaveLength(1);
    db.close();
  });

  it('pages the input items, newest first by default', async () => {
    const { stored, db } = setup();
    const input = await stored.conversation(
      't',
      read({ input: ['a', 'b', 'c'].map((text, i) => ({ id: `msg_${i}`, role: 'user', content: text })) }),
    );
    await stored.keep('t', { id: 'resp_1', input, response: answer('1', 'uno') });
    expect(await stored.inputItems('t', 'resp_1', { limit: 2, order: 'desc' })).toEqual({
      data: [expect.objectContaining({ id: 'msg_2' }), expect.objectContaining({ id: 'msg_1' })],
      hasMore: true,
    });
    expect(await stored.inputItems('t', 'resp_1', { after: 'msg_1', limit: 2, order: 'desc' })).toEqual({
      data: [expect.objectContaining({ id: 'msg_0' })],
      hasMore: false,
    });
    expect((await stored.inputItems('t', 'resp_1', { limit: 20, order: 'asc' })).data.map((i) => i.id)).toEqual([
      'msg_0',
      'msg_1',
      'msg_2',
    ]);
    db.close();
  });
});
