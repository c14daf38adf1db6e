import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { memorySemanticStore } from '../../../core/models/answers/semantic-memory';
import type { SemanticEntry, SemanticStore } from '../../../core/models/ports';
import { decode, encode, redisSemanticStore } from '../../../core/models/redis/semantic-store';

/** Two handles on one store (two workers; the same object for the per-process memory store), bounded to `PER_SHAPE` entries per list. */
interface Opened {
  one: SemanticStore;
  two: SemanticStore;
  close(): Promise<void>;
}
const PER_SHAPE = 4;
const TTL = 60_000;
const T0 = 1_700_000_000_000;
const entry = (key: string, at: number, ...v: number[]): SemanticEntry => ({
  key,
  at,
  vector: Float32Array.from(v.length ? v : [1, 0, 0]),
});

/** The SemanticStore port's contract (core/models/ports.ts): every adapter passes it unchanged. */
function semanticStoreContract(name: string, open: () => Promise<Opened>) {
  describe(`SemanticStore contract: ${name}`, () => {
    let s: Opened;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(() => s.close());

    it('gives what was added, newest first, vectors and keys intact, from either handle', async () => {
      await s.one.add('acme', 'shape', entry('k1', T0, 0.5, -0.25, 1e-7), TTL);
      await s.two.add('acme', 'shape', entry('k2 ✓', T0 + 1, -1, 2, 3.5), TTL);
      const got = await s.two.entries('acme', 'shape', T0 + 2, TTL);
      expect(got.map((e) => [e.key, e.at, [...e.vector]])).toEqual([
        ['k2 ✓', T0 + 1, [-1, 2, 3.5]],
        ['k1', T0, [0.5, -0.25, Math.fround(1e-7)]],
      ]);
      expect(got[0].vector).toBeInstanceOf(Float32Array);
    });

    it('never gives one tenant another tenant’s entries, nor another shape’s', async () => {
      await s.one.add('acme', 'shape', entry('acme-answer', T0), TTL);
      expect(await s.two.entries('globex', 'shape', T0 + 1, TTL)).toEqual([]);
      expect(await s.two.entries('acme', 'other-shape', T0 + 1, TTL)).toEqual([]);
      // A tenant whose name would run into the shape in a naive key still has a list of its own.
      await s.one.add('a', 'b:c', entry('x', T0), TTL);
      expect(await s.two.entries('a:b', 'c', T0 + 1, TTL)).toEqual([]);
    });

    it('keeps the newest entries of a list past its bound, and none older than the TTL', async () => {
      for (let i = 0; i < PER_SHAPE + 2; i++) await s.one.add('acme', 'shape', entry(`k${i}`, T0 + i), TTL);
      const kept = await s.two.entries('acme', 'shape', T0 + 10, TTL);
      expect(kept.map((e) => e.key)).toEqual(['k5', 'k4', 'k3', 'k2']);
      // At T0 + 3 + TTL, the entries added at or before T0 + 3 are past their time.
      expect((await s.two.entries('acme', 'shape', T0 + 3 + TTL, TTL)).map((e) => e.key)).toEqual(['k5', 'k4']);
    });
  });
}

semanticStoreContract('memory', async () => {
  const m = memorySemanticStore({ maxPerShape: PER_SHAPE });
  return { one: m, two: m, close: async () => undefined };
});

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  semanticStoreContract('Redis', async () => {
    const prefix = `test:semantic-store:${randomUUID()}:`;
    const [a, b] = [new Redis(process.env.REDIS_URL!), new Redis(process.env.REDIS_URL!)];
    return {
      one: redisSemanticStore(a, { prefix, maxPerShape: PER_SHAPE }),
      two: redisSemanticStore(b, { prefix, maxPerShape: PER_SHAPE }),
      close: async () => {
        const keys = await a.keys(`${prefix}*`);
        if (keys.length) await a.del(...keys);
        await Promise.all([a.quit(), b.quit()]);
      },
    };
  });

  describe('the semantic store in Redis', () => {
    it('keeps each list for the TTL after its last entry (Redis expires it), as one binary value per entry', async () => {
      const prefix = `test:semantic-store:${randomUUID()}:`;
      const r = new Redis(process.env.REDIS_URL!);
      try {
        await redisSemanticStore(r, { prefix }).add('acme', 's', entry('k', Date.now(), ...new Array(1024).fill(0.5)), 30_000);
        const [key] = await r.keys(`${prefix}*`);
        expect(key).not.toContain('acme');
        expect(await r.pttl(key)).toBeGreaterThan(0);
        expect(await r.pttl(key)).toBeLessThanOrEqual(30_000);
        const [raw] = await r.lrangeBuffer(key, 0, 0);
        expect(raw.length).toBe(10 + 1 + 4096);
        await r.del(key);
      } finally {
        await r.quit();
      }
    });
  });
}

describe('the semantic store in memory', () => {
  it('bounds its entries in all by dropping the least recently used lists', async () => {
    const m = memorySemanticStore({ maxPerShape: 2, maxEntries: 4 });
    await m.add('t', 'a', entry('a1', T0), TTL);
    await m.add('t', 'a', entry('a2', T0), TTL);
    await m.add('t', 'b', entry('b1', T0), TTL);
    await m.add('u', 'c', entry('c1', T0), TTL);
    // `a` is read: `b` is now the least recently used list, and goes when the fifth entry comes.
    expect(await m.entries('t', 'a', T0, TTL)).toHaveLength(2);
    await m.add('u', 'd', entry('d1', T0), TTL);
    expect(m.size()).toBe(4);
    expect(await m.entries('t', 'b', T0, TTL)).toEqual([]);
    expect((await m.entries('t', 'a', T0, TTL)).map((e) => e.key)).toEqual(['a2', 'a1']);
  });

  it('lets a list go once its last entry is past the TTL', async () => {
    const m = memorySemanticStore();
    await m.add('t', 'a', entry('a1', T0), TTL);
    expect(await m.entries('t', 'a', T0 + TTL, TTL)).toEqual([]);
    expect(m.size()).toBe(0);
  });
});

describe('a semantic entry as bytes', () => {
  it('reads back what it wrote; bytes that are not an entry read as none', () => {
    const e = entry('f'.repeat(64), T0, 1, -2, 0.125);
    expect(decode(encode(e))).toEqual(e);
    expect(decode(Buffer.from([1, 2, 3]))).toBeUndefined();
    expect(decode(Buffer.concat([encode(e), Buffer.from([0])]))).toBeUndefined();
  });
});
