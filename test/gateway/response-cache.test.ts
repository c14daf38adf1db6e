import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRedis, type OpenedRedis } from '../../core/shared/redis';
import { openDatabase } from '../../core/shared/sqlite';
import { GATEWAY_MIGRATIONS } from '../../gateway/persisted-queries';
import type { ResponseCacheOptions } from '../../gateway/response-cache';
import { startInTemp } from '../e2e/shared/server';
import { closedPort } from '../rest/models/fixture';
import { cacheGraph, cacheSupergraph, get, post, type CacheGraph } from './cache-graph';

/** The optional response cache, black-box over HTTP: public cacheable answers only, shared where its store is. */
const MB = 2 ** 20;
const REDIS_URL = process.env.REDIS_URL;
const withRedis = REDIS_URL ? describe : describe.skip;

/** What every store must do, on one gateway. */
function behaves(name: string, options: () => ResponseCacheOptions) {
  describe(`the response cache in ${name}`, () => {
    let g: CacheGraph;
    beforeAll(async () => {
      g = await cacheGraph({ responseCache: options() });
    });
    afterAll(async () => {
      await g?.stop();
    });

    it('answers a public cacheable query once from the subgraph (MISS), then from the cache (HIT, Age)', async () => {
      const first = await post(g.url, { query: '{ counter }' });
      expect(first.xCache).toBe('MISS');
      expect(first.cacheControl).toBe('max-age=60, public');
      const second = await get(g.url, { query: '{ counter }' }, { origin: 'https://app.example' });
      expect(second.xCache).toBe('HIT');
      expect(second.exposed?.split(/,\s*/)).toEqual(expect.arrayContaining(['x-cache', 'age']));
      expect(second.body).toEqual(first.body);
      expect(second.cacheControl).toBe('max-age=60, public');
      expect(Number(second.age)).toBeGreaterThanOrEqual(0);
      expect(g.calls.counter).toBe(1);
    });

    it('keys answers by operation name and variables (their order irrelevant)', async () => {
      const doc = 'query A($s: Int, $t: Int) { counter(step: $s) models { id } t: counter(step: $t) } query B { counter }';
      const a = await post(g.url, { query: doc, operationName: 'A', variables: { s: 10, t: 1 } });
      expect(a.xCache).toBe('MISS');
      expect((await post(g.url, { query: doc, operationName: 'A', variables: { t: 1, s: 10 } })).xCache).toBe('HIT');
      expect((await post(g.url, { query: doc, operationName: 'A', variables: { s: 100, t: 1 } })).xCache).toBe('MISS');
      expect((await post(g.url, { query: doc, operationName: 'B' })).xCache).toBe('MISS');
    });

    it('never keeps a private answer, an answer with errors, a mutation or an unhinted query (BYPASS)', async () => {
      const models = g.calls.models ?? 0;
      const me = [await get(g.url, { query: '{ me { id } }' }), await get(g.url, { query: '{ me { id } }' })];
      expect(me.map((a) => a.xCache)).toEqual(['BYPASS', 'BYPASS']);
      expect(me.map((a) => a.body.data)).toEqual([{ me: { id: 'account-1' } }, { me: { id: 'account-2' } }]);
      const mixed = await get(g.url, { query: '{ models { id usage } }' });
      expect(mixed.cacheControl).toBe('max-age=60, private');
      expect(mixed.xCache).toBe('BYPASS');
      expect((await get(g.url, { query: '{ models { id usage } }' })).xCache).toBe('BYPASS');
      expect(g.calls.models).toBe(models + 2);

      const fails = g.calls.fails ?? 0;
      const failing = '{ fails counter(step: 1000) }';
      expect((await post(g.url, { query: failing })).xCache).toBe('MISS');
      const again = await post(g.url, { query: failing });
      expect(again.xCache).toBe('MISS');
      expect(again.body.errors?.length).toBeGreaterThan(0);
      expect(g.calls.fails).toBe(fails + 2);

      const unhinted = g.calls.unhinted ?? 0;
      expect((await post(g.url, { query: 'mutation { bump }' })).xCache).toBe('BYPASS');
      expect((await post(g.url, { query: '{ unhinted }' })).xCache).toBe('BYPASS');
      expect((await post(g.url, { query: '{ unhinted }' })).body.data).toEqual({ unhinted: 'plain' });
      expect(g.calls.unhinted).toBe(unhinted + 2);
    });
  });
}

behaves('memory', () => ({ maxBytes: MB }));

const dir = mkdtempSync(join(tmpdir(), 'response-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
behaves('gateway.db', () => ({ maxBytes: MB, file: join(dir, 'one.db') }));

describe('the response cache shared by workers (one gateway.db)', () => {
  it("answers on one worker what another kept, never from another graph's answers", async () => {
    const file = join(dir, 'shared.db');
    const one = await cacheGraph({ responseCache: { maxBytes: MB, file } });
    const two = await cacheGraph({ responseCache: { maxBytes: MB, file } });
    try {
      const kept = await post(one.url, { query: '{ counter models { id } }' });
      expect(kept.xCache).toBe('MISS');
      const shared = await post(two.url, { query: '{ counter models { id } }' });
      expect(shared.xCache).toBe('HIT');
      expect(shared.body).toEqual(kept.body);
      expect(two.calls.counter).toBeUndefined();
      // Another graph (a new deployment's supergraph) on the same file does not see them.
      const other = await cacheGraph({ responseCache: { maxBytes: MB, file }, supergraph: `${cacheSupergraph()}# another graph\n` });
      try {
        expect((await post(other.url, { query: '{ counter models { id } }' })).xCache).toBe('MISS');
      } finally {
        await other.stop();
      }
    } finally {
      await one.stop();
      await two.stop();
    }
  });

  it('tells the Age of a kept answer and keeps it for its maxAge only', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const g = await cacheGraph({ responseCache: { maxBytes: MB, file: join(dir, 'aged.db'), now: () => now } });
    try {
      expect((await post(g.url, { query: '{ models { id } }' })).xCache).toBe('MISS');
      now += 42_500;
      const aged = await post(g.url, { query: '{ models { id } }' });
      expect([aged.xCache, aged.age, aged.cacheControl]).toEqual(['HIT', '42', 'max-age=60, public']);
      now += 18_000;
      const expired = await post(g.url, { query: '{ models { id } }' });
      expect([expired.xCache, expired.age]).toEqual(['MISS', null]);
      expect(g.calls.models).toBe(2);
    } finally {
      await g.stop();
    }
  });
});

describe('platform start with GRAPHQL_RESPONSE_CACHE=on', () => {
  it('serves the graph through the response cache kept in gateway.db', async () => {
    const p = await startInTemp('all', { GRAPHQL_RESPONSE_CACHE: 'on', GRAPHQL_RESPONSE_CACHE_MB: '1' });
    try {
      // The graph's own queries carry no public hint yet: they run (BYPASS), and are never kept.
      const a = await post(p.url, { query: '{ __typename }' });
      expect([a.status, a.xCache, a.cacheControl]).toEqual([200, 'BYPASS', 'no-store']);
      const db = openDatabase(join(p.dataDir, 'gateway.db'), GATEWAY_MIGRATIONS);
      try {
        expect(db.prepare('SELECT count(*) AS n FROM response_cache').get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    } finally {
      await p.stop();
    }
  });

  it('is off by default: no x-cache', async () => {
    const p = await startInTemp('all');
    try {
      const a = await post(p.url, { query: '{ __typename }' });
      expect([a.status, a.xCache, a.cacheControl]).toEqual([200, null, 'no-store']);
    } finally {
      await p.stop();
    }
  });
});

describe('a response cache that fails', () => {
  let broken: OpenedRedis;
  let g: CacheGraph;
  beforeAll(async () => {
    broken = openRedis(`redis://127.0.0.1:${await closedPort()}`, { connectTimeoutMs: 200 });
    g = await cacheGraph({ responseCache: { maxBytes: MB, redis: { client: broken.client, prefix: 'test:' } } });
  });
  afterAll(async () => {
    await g.stop();
    await broken.close();
  });

  it('answers "miss": every request runs and gets its answer', async () => {
    const answers = [await post(g.url, { query: '{ counter }' }), await post(g.url, { query: '{ counter }' })];
    expect(answers.map((a) => [a.status, a.xCache, a.body.data])).toEqual([
      [200, 'MISS', { counter: 1 }],
      [200, 'MISS', { counter: 2 }],
    ]);
  });
});

withRedis('the response cache in Redis (REDIS_URL)', () => {
  const prefix = `test:${randomUUID()}:gateway:responses:`;
  let redis: OpenedRedis;
  beforeAll(async () => {
    redis = openRedis(REDIS_URL!);
    await redis.ping();
  });
  afterAll(async () => {
    const keys = await redis.client.keys(`${prefix}*`);
    if (keys.length) await redis.client.del(...keys);
    await redis.close();
  });

  behaves('Redis', () => ({ maxBytes: MB, redis: { client: redis.client, prefix } }));

  it('is shared by two gateways (replicas): one keeps, the other answers, for the maxAge', async () => {
    const one = await cacheGraph({ responseCache: { maxBytes: MB, redis: { client: redis.client, prefix } } });
    const two = await cacheGraph({ responseCache: { maxBytes: MB, redis: { client: redis.client, prefix } } });
    try {
      const query = '{ counter(step: 7) }';
      expect((await get(one.url, { query })).xCache).toBe('MISS');
      const shared = await get(two.url, { query });
      expect([shared.xCache, shared.body.data]).toEqual(['HIT', { counter: 7 }]);
      expect(two.calls.counter).toBeUndefined();
      const ttl = await redis.client.ttl((await redis.client.keys(`${prefix}*`))[0]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
      // Private answers are never written: only public ones are under the prefix.
      await get(two.url, { query: '{ me { id } }' });
      const values = await Promise.all((await redis.client.keys(`${prefix}*`)).map((k) => redis.client.get(k)));
      expect(values.join('\n')).not.toMatch(/account-/);
    } finally {
      await one.stop();
      await two.stop();
    }
  });
});
