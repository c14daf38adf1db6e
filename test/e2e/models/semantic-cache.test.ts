import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from '../../shared/wait';
import { startInTemp, type Started } from '../shared/server';
import { newKey } from './new-key';

/**
 * The semantic cache (`semantic_cache` key option, docs/semantic-cache.md) over HTTP through a
 * started platform, offline: `local-chat` answers, `local-embed` embeds the questions. A
 * near-identical question of the same tenant is a HIT with its similarity; a different one, another
 * tenant's, `is_cache` 0 and threshold 1 are not.
 */
const SOURCES =
  'Sources:\n[1] Glaciers retreat as the climate warms. Sea levels rise as ice melts and the oceans expand with heat. ' +
  '[2] Ice sheets hold most of the fresh water on Earth.';

let p: Started;
beforeAll(async () => {
  p = await startInTemp('all');
}, 60_000);
afterAll(() => p?.stop());

const chat = (apiKey: string, question: string, extra: Record<string, unknown> = {}) =>
  fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': apiKey },
    body: JSON.stringify({
      messages: [
        { role: 'system', content: SOURCES },
        { role: 'user', content: question },
      ],
      ...extra,
    }),
  });
const ask = async (apiKey: string, question: string, extra: Record<string, unknown> = {}) => {
  const res = await chat(apiKey, question, extra);
  expect(res.status).toBe(200);
  const body = extra.stream ? await res.text() : (((await res.json()) as any).choices[0].message.content as string);
  return { cache: res.headers.get('x-cache'), similarity: res.headers.get('x-cache-similarity'), body };
};
const withOptions = (key: string, options: Record<string, unknown>) => `${key}/${JSON.stringify(options)}`;
async function usageOf(apiKey: string) {
  const res = await fetch(`${p.url}/proxy/api/v1/usage`, { headers: { 'api-key': apiKey } });
  const body = (await res.json()) as { by_model: { model: string; requests: number; cache_hits: number }[] };
  return Object.fromEntries(body.by_model.map((m) => [m.model, m]));
}

describe('the semantic cache over HTTP', () => {
  it('answers a near-identical question from the cache with its similarity; a different one misses', async () => {
    const key = withOptions(await newKey(p, 'sem', '--tenant', 'sem-acme'), { semantic_cache: 0.85 });
    const first = await ask(key, 'Why do glaciers retreat as the climate warms?');
    expect(first).toMatchObject({ cache: 'MISS', similarity: null });
    // Case, punctuation and a function word apart: the same question to local-embed (its words, hashed).
    const near = await ask(key, 'why do the glaciers retreat as the climate warms');
    expect(near).toEqual({ cache: 'HIT', similarity: '1.000', body: first.body });
    // One word more: 4 of 5 words shared, a cosine of 0.894.
    expect(await ask(key, 'Why do glaciers really retreat as the climate warms?')).toEqual({
      cache: 'HIT',
      similarity: '0.894',
      body: first.body,
    });
    // Two words more: 0.816, below the key's threshold.
    expect((await ask(key, 'Why do glaciers retreat rapidly as the climate warms dramatically?')).cache).toBe('MISS');
    // Another question over the same sources is not the same question.
    expect(await ask(key, 'Where is most of the fresh water on Earth?')).toMatchObject({ cache: 'MISS', similarity: null });
    // The exact repeat is the exact cache's: a HIT with no similarity, and no embedding made.
    expect(await ask(key, 'Why do glaciers retreat as the climate warms?')).toMatchObject({ cache: 'HIT', similarity: null });

    // Usage counts the semantic hits as cache hits, and each embedding as a local-embed call of the key.
    await eventually(async () => (await usageOf(key))['local-chat']?.requests === 6);
    expect((await usageOf(key))['local-chat'].cache_hits).toBe(3);
    await eventually(async () => (await usageOf(key))['local-embed']?.requests === 5);
  });

  it('replays a streamed answer as a stream to a near-identical streamed question', async () => {
    const key = withOptions(await newKey(p, 'sem-stream', '--tenant', 'sem-stream'), { semantic_cache: 0.9 });
    const first = await ask(key, 'How do ice sheets hold fresh water?', { stream: true });
    const near = await ask(key, 'how do ice sheets hold fresh water', { stream: true });
    expect(first.cache).toBe('MISS');
    expect(near.cache).toBe('HIT');
    expect(near.body).toContain('data: [DONE]');
    const text = (sse: string) =>
      sse
        .split('\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.content ?? '')
        .join('');
    expect(text(near.body)).toBe(text(first.body));
    expect(text(near.body)).not.toBe('');
  });

  it('says so in the graph: the chat mutation’s cached and cacheSimilarity', async () => {
    const key = withOptions(await newKey(p, 'sem-graph', '--tenant', 'sem-graph'), { semantic_cache: 0.9 });
    const chat = async (question: string) => {
      const res = await fetch(`${p.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': key },
        body: JSON.stringify({
          query: 'mutation($input: ChatInput!) { chat(input: $input) { content cached cacheSimilarity } }',
          variables: {
            input: {
              model: 'local-chat',
              messages: [
                { role: 'SYSTEM', content: SOURCES },
                { role: 'USER', content: question },
              ],
            },
          },
        }),
      });
      return ((await res.json()) as any).data.chat as { content: string; cached: boolean; cacheSimilarity: number | null };
    };
    const first = await chat('What do the ice sheets hold?');
    expect(first).toMatchObject({ cached: false, cacheSimilarity: null });
    expect(await chat('what do ice sheets hold')).toEqual({ content: first.content, cached: true, cacheSimilarity: expect.closeTo(1, 5) });
  });

  it('never answers one tenant from another tenant’s entries', async () => {
    const acme = withOptions(await newKey(p, 'sem-a', '--tenant', 'sem-tenant-a'), { semantic_cache: 0.8 });
    const globex = withOptions(await newKey(p, 'sem-b', '--tenant', 'sem-tenant-b'), { semantic_cache: 0.8 });
    expect((await ask(acme, 'Why do sea levels rise when ice melts?')).cache).toBe('MISS');
    // The same words from another tenant: its own first question.
    expect((await ask(globex, 'why do sea levels rise when ice melts')).cache).toBe('MISS');
    // Each tenant's own near repeat hits its own entry.
    expect((await ask(acme, 'Why do the sea levels rise when ice melts')).cache).toBe('HIT');
    expect((await ask(globex, 'Why do the sea levels rise, when ice melts?')).cache).toBe('HIT');
  });

  it('is bypassed with is_cache 0, and threshold 1 is the exact cache alone', async () => {
    const plain = await newKey(p, 'sem-off', '--tenant', 'sem-off');
    const off = withOptions(plain, { is_cache: 0, semantic_cache: 0.5 });
    expect((await ask(off, 'Why does the ocean expand with heat?')).cache).toBe('BYPASS');
    expect((await ask(off, 'why does the ocean expand with heat')).cache).toBe('BYPASS');
    const exact = withOptions(plain, { semantic_cache: 1 });
    expect((await ask(exact, 'What melts the ice?')).cache).toBe('MISS');
    expect((await ask(exact, 'what melts the ice')).cache).toBe('MISS');
    expect(await ask(exact, 'What melts the ice?')).toMatchObject({ cache: 'HIT', similarity: null });
    // No embedding was made for threshold 1 (nor for is_cache 0).
    await eventually(async () => (await usageOf(plain))['local-chat']?.requests === 5);
    expect((await usageOf(plain))['local-embed']).toBeUndefined();
  });

  it('refuses a threshold outside (0, 1] with a 400 naming the option', async () => {
    const key = await newKey(p, 'sem-bad', '--tenant', 'sem-bad');
    for (const bad of [0, 1.5, -1, 'high']) {
      const res = await chat(withOptions(key, { semantic_cache: bad }), 'Why?');
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toContain("'semantic_cache'");
    }
  });
});

describe('MODELS_SEMANTIC_CACHE_MODEL', () => {
  it('refuses to start naming a model that is not an active embedding model', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
    try {
      await expect(startInTemp('all', { PLATFORM_DATA_DIR: dataDir, MODELS_SEMANTIC_CACHE_MODEL: 'local-chat' })).rejects.toThrow(
        'MODELS_SEMANTIC_CACHE_MODEL: local-chat is not an embedding model',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
if (process.env.REDIS_URL) {
  describe('the semantic cache on Redis, shared by replicas', () => {
    const prefix = `test:semantic-e2e:${randomUUID()}:`;
    const replicas: Started[] = [];
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.stop()));
      const redis = new Redis(process.env.REDIS_URL!);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    });

    it('answers on one replica a question asked near-identically on another; other tenants still miss', async () => {
      for (let i = 0; i < 2; i++) replicas.push(await startInTemp('all', { REDIS_URL: process.env.REDIS_URL!, REDIS_KEY_PREFIX: prefix }));
      const [a, b] = replicas;
      const keyOn = async (r: Started, tenant: string) =>
        withOptions(await newKey(r, 'sem-redis', '--tenant', tenant), { semantic_cache: 0.9 });
      const post = async (r: Started, key: string, question: string) => {
        const res = await fetch(`${r.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'api-key': key },
          body: JSON.stringify({ messages: [{ role: 'user', content: question }] }),
        });
        expect(res.status).toBe(200);
        return { cache: res.headers.get('x-cache'), similarity: res.headers.get('x-cache-similarity') };
      };
      expect((await post(a, await keyOn(a, 'sem-redis-acme'), 'Why do ice sheets melt?')).cache).toBe('MISS');
      expect(await post(b, await keyOn(b, 'sem-redis-acme'), 'why do the ice sheets melt')).toEqual({ cache: 'HIT', similarity: '1.000' });
      expect((await post(b, await keyOn(b, 'sem-redis-globex'), 'why do the ice sheets melt')).cache).toBe('MISS');
      // The entries are in Redis under the prefix, one list per tenant and shape, the tenant's name not in it.
      const redis = new Redis(process.env.REDIS_URL!);
      try {
        const lists = await redis.keys(`${prefix}models:semantic:*`);
        expect(lists).toHaveLength(2);
        expect(lists.join()).not.toContain('acme');
      } finally {
        await redis.quit();
      }
    }, 120_000);
  });
}
