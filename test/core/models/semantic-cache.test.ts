import { answerCache } from '../../../core/models/answers/cache';
import { semanticCache, type SemanticOp } from '../../../core/models/answers/semantic-cache';
import { memorySemanticStore } from '../../../core/models/answers/semantic-memory';
import type { ChatRequest, ChatStream } from '../../../core/models/neutral';
import type { AnswerStore, SemanticStore } from '../../../core/models/ports';
import { openModelsDb, sqliteAnswerStore } from '../../../core/models/sqlite';
import { hashingVectors } from '../../../core/shared/text/embedder';
import { testClock } from '../../shared/helpers';

const answer = (text: string, finishReason: 'stop' | 'content_filter' = 'stop'): ChatStream => ({
  pieces: (async function* gen() {
    yield* text.split(' ');
  })(),
  done: Promise.resolve({ finishReason, usage: { promptTokens: 1, completionTokens: 2 } }),
});
const read = async (s: ChatStream) => {
  let text = '';
  for await (const p of s.pieces) text += p;
  await s.done;
  // The store is written as the stream ends, then the entry once the answer was kept: let both land.
  await new Promise((r) => setImmediate(r));
  return text;
};
const SOURCES = 'Sources: [1] Glaciers retreat as the climate warms. Sea levels rise as ice melts and oceans expand with heat.';
const ask = (question: string, more: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'm',
  messages: [
    { role: 'system', text: SOURCES },
    { role: 'user', text: question },
  ],
  ...more,
});

function setup(o: { answers?: AnswerStore; store?: SemanticStore; failEmbed?: boolean } = {}) {
  const clock = testClock();
  const answers = o.answers ?? sqliteAnswerStore(openModelsDb(':memory:'), { clock, maxEntries: 100, maxBytes: 1 << 20 });
  const errors: { op: SemanticOp; message: string }[] = [];
  const cache = semanticCache({
    cache: answerCache(answers, { ttlMs: 60_000, maxEntryBytes: 1 << 20 }),
    store: o.store ?? memorySemanticStore(),
    clock,
    ttlMs: 60_000,
    onError: (op, e) => errors.push({ op, message: e.message }),
  });
  const embedded: string[] = [];
  const embed = async (text: string) => {
    embedded.push(text);
    if (o.failEmbed) throw new Error('embedding model down');
    return hashingVectors([text])[0];
  };
  let calls = 0;
  const through = async (tenant: string, request: ChatRequest, threshold = 0.9, reply = `answer ${calls + 1}`) => {
    const r = await cache.through({ tenant, catalog: 'local-chat', request, threshold, embed }, async () => (calls++, answer(reply)));
    return { outcome: r.outcome, similarity: r.similarity, text: await read(r.stream) };
  };
  return { through, embedded, errors, clock, calls: () => calls };
}

describe('the semantic cache', () => {
  it('answers a near-identical prompt of the same tenant and shape from the earlier answer, saying how similar', async () => {
    const s = setup();
    expect(await s.through('acme', ask('Why do glaciers retreat?'))).toEqual({ outcome: 'MISS', similarity: undefined, text: 'answer1' });
    const near = await s.through('acme', ask('why do glaciers retreat'));
    expect(near).toMatchObject({ outcome: 'SEMANTIC_HIT', text: 'answer1' });
    expect(near.similarity).toBeGreaterThanOrEqual(0.9);
    // One word more: still similar enough.
    expect(await s.through('acme', ask('Why do glaciers retreat so?'))).toMatchObject({ outcome: 'SEMANTIC_HIT', text: 'answer1' });
    // The same request again is the exact cache's: no embedding made.
    const before = s.embedded.length;
    expect(await s.through('acme', ask('Why do glaciers retreat?'))).toEqual({ outcome: 'HIT', similarity: undefined, text: 'answer1' });
    expect(s.embedded.length).toBe(before);
    expect(s.calls()).toBe(1);
  });

  it('misses a different question, another tenant, another shape, and a prompt below the threshold', async () => {
    const s = setup();
    await s.through('acme', ask('Why do glaciers retreat?'));
    // The same sources in the system prompt do not make another question alike.
    expect((await s.through('acme', ask('What makes the oceans expand?'))).outcome).toBe('MISS');
    expect((await s.through('globex', ask('why do glaciers retreat'))).outcome).toBe('MISS');
    expect((await s.through('acme', ask('why do glaciers retreat', { temperature: 0 }))).outcome).toBe('MISS');
    expect((await s.through('acme', ask('why do glaciers retreat'), 0.999_999_9)).outcome).toBe('SEMANTIC_HIT');
    expect((await s.through('acme', ask('Why do glaciers retreat so fast today?'), 0.99)).outcome).toBe('MISS');
    expect(s.errors).toEqual([]);
  });

  it('threshold 1 is the exact cache alone: nothing embedded, nothing near answers', async () => {
    const s = setup();
    await s.through('acme', ask('Why do glaciers retreat?'), 1);
    expect((await s.through('acme', ask('why do glaciers retreat'), 1)).outcome).toBe('MISS');
    expect((await s.through('acme', ask('Why do glaciers retreat?'), 1)).outcome).toBe('HIT');
    expect(s.embedded).toEqual([]);
  });

  it('embeds the last user message, bounded, and adds an entry only for an answer that was kept', async () => {
    const s = setup();
    const r = await s.through('acme', ask('x'.repeat(50_000) + ' Why?'));
    expect(r.outcome).toBe('MISS');
    expect(s.embedded[0]).toHaveLength(8192);
    expect(s.embedded[0].endsWith('x Why?')).toBe(true);

    // An answer the upstream refused to finish is not kept: nor is its entry.
    const refused = setup();
    const up = async () => answer('no', 'content_filter');
    const cache = semanticCache({
      cache: answerCache(sqliteAnswerStore(openModelsDb(':memory:'), { clock: refused.clock, maxEntries: 10, maxBytes: 1 << 20 }), {
        ttlMs: 60_000,
        maxEntryBytes: 1 << 20,
      }),
      store: memorySemanticStore(),
      clock: refused.clock,
      ttlMs: 60_000,
    });
    const embed = async (t: string) => hashingVectors([t])[0];
    const call = (q: string) => ({ tenant: 'acme', catalog: 'c', request: ask(q), threshold: 0.9, embed });
    await read((await cache.through(call('Why do glaciers retreat?'), up)).stream);
    expect((await cache.through(call('why do glaciers retreat'), up)).outcome).toBe('MISS');
  });

  it('goes on without a failed embedding or store, reporting it; the entries expire with the cache’s TTL', async () => {
    const down = setup({ failEmbed: true });
    expect((await down.through('acme', ask('Why do glaciers retreat?'))).outcome).toBe('MISS');
    expect((await down.through('acme', ask('why do glaciers retreat'))).outcome).toBe('MISS');
    expect(down.errors).toEqual([
      { op: 'embed', message: 'embedding model down' },
      { op: 'embed', message: 'embedding model down' },
    ]);

    const broken: SemanticStore = {
      entries: async () => Promise.reject(new Error('store down')),
      add: async () => Promise.reject(new Error('store down')),
    };
    const s = setup({ store: broken });
    expect((await s.through('acme', ask('Why do glaciers retreat?'))).outcome).toBe('MISS');
    expect(s.errors.map((e) => e.op)).toEqual(['get', 'set']);

    const aged = setup();
    await aged.through('acme', ask('Why do glaciers retreat?'));
    aged.clock.advance(60_000);
    expect((await aged.through('acme', ask('why do glaciers retreat'))).outcome).toBe('MISS');
  });

  it('a prompt with no user message is never embedded', async () => {
    const s = setup();
    const tools: ChatRequest = { model: 'm', messages: [{ role: 'tool', text: 'result', toolCallId: 'c1' }] };
    expect((await s.through('acme', tools)).outcome).toBe('MISS');
    expect(s.embedded).toEqual([]);
  });
});
