import { openSearchCore, type SearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import type { SearchRequest } from '../../../core/search/types';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { prometheusMetrics, type PrometheusMetrics } from '../../../core/shared/telemetry/prometheus';
import { hashingEmbedder, type Embedder } from '../../../core/shared/text/embedder';
import { seriesValue } from '../../shared/telemetry';

const caller = (tenantId: string, roles = ['search:read', 'search:write']): Ctx<Caller> => ({
  caller: {
    realm: 'r',
    subject: `${tenantId}-user`,
    tenantId,
    roles,
    scopes: [],
    clientId: 'c',
    username: 'u',
    sessionId: 's',
    tokenId: 't',
    expiresAt: 0,
    audience: ['search'],
    bearer: 'x',
  } satisfies Caller,
});
const A = caller('tenant-a');
const req = (mode: SearchRequest['mode'], query: string): SearchRequest => ({ mode, query, filters: {}, offset: 0, limit: 10 });

/** The hashing embedder, failing on a query that says `unembeddable` (an embedding model out of reach). */
function failingEmbedder(): Embedder {
  const base = hashingEmbedder();
  return {
    id: base.id,
    dimensions: base.dimensions,
    fusionWeight: base.fusionWeight,
    sparse: base.sparse,
    embed: async (texts) => {
      if (texts.some((t) => t.includes('unembeddable'))) throw new Error('the embedding model is out of reach');
      return base.embed(texts);
    },
  };
}

describe("the search core's metrics", () => {
  let core: SearchCore;
  let metrics: PrometheusMetrics;
  beforeEach(async () => {
    metrics = prometheusMetrics({ maxTenants: 2 });
    core = openSearchCore({ stores: sqliteSearchStores(':memory:'), embedder: failingEmbedder(), metrics });
    await core.service.createObject({ content: 'Glaciers retreat as the climate warms; sea levels rise.', title: 'Climate' }, A);
    await core.service.createObject({ content: 'Sourdough bread needs a starter, flour and water.', title: 'Baking' }, A);
    await core.service.createObject({ content: 'Climate of tenant B.', title: 'B climate' }, caller('tenant-b'));
  });
  afterEach(() => core.close());

  it("counts and times each query under its mode, v1 and v2 alike (both run the service's search and passages)", async () => {
    for (const mode of ['fulltext', 'semantic', 'hybrid', 'basic'] as const) await core.service.search(req(mode, 'climate'), A);
    await core.service.search(req('hybrid', 'bread'), A);
    await core.service.passages({ query: 'climate', filters: {}, offset: 0, limit: 5 }, A);
    await core.service.passages({ query: 'climate', filters: {}, offset: 0, limit: 5, mode: 'semantic' }, A);
    expect(await seriesValue(metrics, 'platform_search_queries_total', { mode: 'hybrid', outcome: 'ok' })).toBe(2);
    for (const mode of ['fulltext', 'semantic', 'basic', 'passages_hybrid', 'passages_semantic']) {
      expect(await seriesValue(metrics, 'platform_search_queries_total', { mode, outcome: 'ok' })).toBe(1);
    }
    const text = await metrics.registry.getSingleMetricAsString('platform_search_query_duration_seconds');
    expect(text).toContain('platform_search_query_duration_seconds_count{mode="hybrid"} 2');
    expect(text).toContain('platform_search_query_duration_seconds_count{mode="passages_semantic"} 1');
  });

  it('counts a query that fails as an error, and one the caller may not run not at all', async () => {
    await expect(core.service.search(req('semantic', 'unembeddable words'), A)).rejects.toThrow('out of reach');
    expect(await seriesValue(metrics, 'platform_search_queries_total', { mode: 'semantic', outcome: 'error' })).toBe(1);
    await expect(core.service.search(req('fulltext', 'climate'), caller('tenant-a', []))).rejects.toMatchObject({
      code: 'insufficient_scope',
    });
    expect(await seriesValue(metrics, 'platform_search_queries_total', { mode: 'fulltext', outcome: 'error' })).toBe(0);
    expect(await seriesValue(metrics, 'platform_search_queries_total', { mode: 'fulltext', outcome: 'ok' })).toBe(0);
  });

  it("reads the in-memory indexes' objects, passages and memory on each scrape", async () => {
    await core.warmUp();
    expect(await seriesValue(metrics, 'platform_search_index_objects')).toBe(3);
    const passages = await seriesValue(metrics, 'platform_search_index_passages');
    expect(passages).toBeGreaterThanOrEqual(3);
    const before = await seriesValue(metrics, 'platform_search_index_memory_bytes');
    expect(before).toBeGreaterThan(0);
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    await core.service.createObject({ content: words, title: 'Many words' }, A);
    // Read on the scrape after the index caught up: a search does.
    await core.service.search(req('hybrid', 'word7'), A);
    expect(await seriesValue(metrics, 'platform_search_index_objects')).toBe(4);
    expect(await seriesValue(metrics, 'platform_search_index_passages')).toBeGreaterThan(passages);
    expect(await seriesValue(metrics, 'platform_search_index_memory_bytes')).toBeGreaterThan(before);
  });
});
