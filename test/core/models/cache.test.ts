import { cacheKey, chatCache } from '../../../core/models/cache';
import type { ChatStream } from '../../../core/models/chat';
import { testClock } from '../../helpers';

const answer = (pieces: string[], finishReason: 'stop' | 'error' = 'stop'): ChatStream => ({
  pieces: (async function* gen() {
    yield* pieces;
  })(),
  done: Promise.resolve({ finishReason, usage: { promptTokens: 1, completionTokens: pieces.length } }),
});
const read = async (s: ChatStream) => {
  let t = '';
  for await (const p of s.pieces) t += p;
  return t;
};

describe('the chat cache', () => {
  it('serves an answer read to its end until the TTL passes; never a failed or abandoned one', async () => {
    const clock = testClock();
    const cache = chatCache({ clock, ttlMs: 1000, maxEntries: 10, maxBytes: 1 << 20 });
    let calls = 0;
    const upstream = (s: ChatStream) => async () => (calls++, s);
    const first = await cache.through('k', upstream(answer(['a', 'b'])));
    expect(first.outcome).toBe('MISS');
    expect(await read(first.stream)).toBe('ab');
    await new Promise((r) => setImmediate(r));
    const hit = await cache.through('k', upstream(answer(['x'])));
    expect([hit.outcome, await read(hit.stream), calls]).toEqual(['HIT', 'ab', 1]);
    clock.advance(1001);
    expect((await cache.through('k', upstream(answer(['c'])))).outcome).toBe('MISS');

    const failed = await cache.through('f', upstream(answer(['x'], 'error')));
    await read(failed.stream);
    await new Promise((r) => setImmediate(r));
    expect((await cache.through('f', upstream(answer(['y'])))).outcome).toBe('MISS');

    const abandoned = await cache.through('g', upstream(answer(['p', 'q'])));
    const it = abandoned.stream.pieces[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    await new Promise((r) => setImmediate(r));
    expect((await cache.through('g', upstream(answer(['z'])))).outcome).toBe('MISS');
  });

  it('keys by tenant and by canonical request (key order does not matter)', () => {
    expect(cacheKey('t', { a: 1, b: [{ y: 2, x: 1 }] })).toBe(cacheKey('t', { b: [{ x: 1, y: 2 }], a: 1 }));
    expect(cacheKey('t', { a: 1 })).not.toBe(cacheKey('u', { a: 1 }));
  });

  it('drops the least recently used entries past its bounds', async () => {
    const cache = chatCache({ clock: testClock(), ttlMs: 60_000, maxEntries: 2, maxBytes: 1 << 20 });
    for (const k of ['a', 'b', 'c']) {
      await read((await cache.through(k, async () => answer([k]))).stream);
      await new Promise((r) => setImmediate(r));
    }
    expect(cache.size).toBe(2);
    expect((await cache.through('a', async () => answer(['a']))).outcome).toBe('MISS');
  });
});
