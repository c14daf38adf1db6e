import { answerCache, cacheKey, type CacheOp } from '../../../core/models/answers/cache';
import type { ChatStream } from '../../../core/models/neutral';
import { openModelsDb, sqliteAnswerStore } from '../../../core/models/sqlite';
import type { AnswerStore } from '../../../core/models/ports';
import { testClock } from '../../shared/helpers';

const answer = (pieces: string[], finishReason: 'stop' | 'length' | 'error' = 'stop'): ChatStream => ({
  pieces: (async function* gen() {
    yield* pieces;
  })(),
  done: Promise.resolve({ finishReason, usage: { promptTokens: 1, completionTokens: pieces.length } }),
});
const read = async (s: ChatStream) => {
  const pieces: string[] = [];
  for await (const p of s.pieces) pieces.push(p);
  return { pieces, ...(await s.done) };
};
const counting = (make: () => ChatStream) => {
  const up = async () => (up.calls++, make());
  up.calls = 0;
  return up;
};
const inModelsDb = (clock = testClock()) => sqliteAnswerStore(openModelsDb(':memory:'), { clock, maxEntries: 100, maxBytes: 1 << 20 });

describe('the chat cache', () => {
  it('replays an answer read to its end, piece by piece, until the TTL passes; never a failed or abandoned one', async () => {
    const clock = testClock();
    const cache = answerCache(inModelsDb(clock), { ttlMs: 1000, maxEntryBytes: 1 << 20 });
    const up = counting(() => answer(['a', 'b'], 'length'));
    const first = await cache.through('k', up);
    expect(first.outcome).toBe('MISS');
    const whole = await read(first.stream);
    const hit = await cache.through('k', up);
    expect(hit.outcome).toBe('HIT');
    expect(await read(hit.stream)).toEqual(whole);
    expect(whole).toEqual({ pieces: ['a', 'b'], finishReason: 'length', usage: { promptTokens: 1, completionTokens: 2 } });
    expect(up.calls).toBe(1);
    clock.advance(1000);
    expect((await cache.through('k', up)).outcome).toBe('MISS');

    const failed = await cache.through('f', async () => answer(['x'], 'error'));
    await read(failed.stream);
    expect((await cache.through('f', async () => answer(['y']))).outcome).toBe('MISS');

    const abandoned = await cache.through('g', async () => answer(['p', 'q']));
    const it = abandoned.stream.pieces[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect((await cache.through('g', async () => answer(['z']))).outcome).toBe('MISS');
  });

  it('replays the tool calls of an answer that called tools', async () => {
    const cache = answerCache(inModelsDb(), { ttlMs: 60_000, maxEntryBytes: 1 << 20 });
    const toolCalls = [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    const up = counting(() => ({
      pieces: (async function* none() {})(),
      done: Promise.resolve({ finishReason: 'tool_calls' as const, usage: { promptTokens: 5, completionTokens: 7 }, toolCalls }),
    }));
    const first = await read((await cache.through('t', up)).stream);
    const hit = await cache.through('t', up);
    expect(hit.outcome).toBe('HIT');
    expect(await read(hit.stream)).toEqual(first);
    expect(first).toEqual({ pieces: [], finishReason: 'tool_calls', usage: { promptTokens: 5, completionTokens: 7 }, toolCalls });
    expect(up.calls).toBe(1);
  });

  it("keys by tenant, model and request: its fields in any order are one key, a schema's key order is part of it", () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } };
    const request = {
      model: 'm',
      messages: [{ role: 'user' as const, text: 'Weather?' }],
      temperature: 0.5,
      tools: [{ name: 'weather', parameters: schema }],
      responseFormat: { type: 'json_schema' as const, name: 'w', schema },
    };
    const reordered = {
      responseFormat: { schema, name: 'w', type: 'json_schema' as const },
      tools: [{ parameters: schema, name: 'weather' }],
      temperature: 0.5,
      messages: [{ text: 'Weather?', role: 'user' as const }],
      model: 'm',
      stream: true,
      promptTokens: 12,
    };
    expect(cacheKey('t', 'c', reordered)).toBe(cacheKey('t', 'c', request));
    expect(cacheKey('u', 'c', request)).not.toBe(cacheKey('t', 'c', request));
    expect(cacheKey('t', 'd', request)).not.toBe(cacheKey('t', 'c', request));
    expect(cacheKey('t', 'c', { ...request, temperature: 0.6 })).not.toBe(cacheKey('t', 'c', request));
    // OpenAI writes a structured answer's properties in its schema's order: another order is another request.
    const swapped = { type: 'object', properties: { days: { type: 'integer' }, city: { type: 'string' } } };
    expect(cacheKey('t', 'c', { ...request, responseFormat: { ...request.responseFormat, schema: swapped } })).not.toBe(
      cacheKey('t', 'c', request),
    );
  });

  it('does not keep an answer over maxEntryBytes', async () => {
    const cache = answerCache(inModelsDb(), { ttlMs: 60_000, maxEntryBytes: 200 });
    await read((await cache.through('big', async () => answer(['x'.repeat(120), 'y'.repeat(120)]))).stream);
    await read((await cache.through('small', async () => answer(['short']))).stream);
    expect((await cache.through('big', async () => answer(['x']))).outcome).toBe('MISS');
    expect((await cache.through('small', async () => answer(['x']))).outcome).toBe('HIT');
  });

  it('answers from upstream when its store fails, says so, and does not write after a failed read', async () => {
    const seen: [CacheOp, string][] = [];
    let sets = 0;
    const broken: AnswerStore = {
      get: async () => {
        throw new Error('disk I/O error');
      },
      set: async () => void sets++,
    };
    const cache = answerCache(broken, { ttlMs: 60_000, maxEntryBytes: 1 << 20, onError: (op, e) => seen.push([op, e.message]) });
    const r = await cache.through('k', async () => answer(['still']));
    expect(r.outcome).toBe('MISS');
    expect((await read(r.stream)).pieces).toEqual(['still']);
    expect([seen, sets]).toEqual([[['get', 'disk I/O error']], 0]);

    const unwritable: AnswerStore = {
      get: async () => undefined,
      set: () => {
        throw new Error('database is locked');
      },
    };
    const other = answerCache(unwritable, { ttlMs: 60_000, maxEntryBytes: 1 << 20, onError: (op, e) => seen.push([op, e.message]) });
    expect((await read((await other.through('k', async () => answer(['fine']))).stream)).pieces).toEqual(['fine']);
    expect(seen.at(-1)).toEqual(['set', 'database is locked']);
  });

  it('treats an unreadable entry as a miss and overwrites it', async () => {
    const seen: CacheOp[] = [];
    const store = inModelsDb();
    await store.set('k', '{"not":"an answer"}', 60_000);
    const cache = answerCache(store, { ttlMs: 60_000, maxEntryBytes: 1 << 20, onError: (op) => seen.push(op) });
    const up = counting(() => answer(['fresh']));
    await read((await cache.through('k', up)).stream);
    expect(seen).toEqual(['get']);
    expect((await cache.through('k', up)).outcome).toBe('HIT');
    expect(up.calls).toBe(1);
  });
});
