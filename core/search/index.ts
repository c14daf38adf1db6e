import { systemClock, type Clock } from '../shared/clock';
import { hashingEmbedder, type Embedder } from '../shared/text/embedder';
import type { Reranker } from './fusion';
import { ranking } from './ranking';
import { coverageReranker } from './rerank';
import { createSearchService } from './search-service';
import type { SearchService } from './service';
import { lexicalSearch } from './lexical';
import type { SearchStore, SearchStores } from './ports';
import { searchIndex } from './search-index';
import { vectorSearch } from './semantic';
import type { SqliteSearchStore } from './sqlite';
import { createSearchAdmin, type SearchAdmin } from './admin';
import type { Metrics } from '../shared/telemetry/metrics';
import { indexGauges } from './telemetry';

export interface SearchCore {
  service: SearchService;
  admin: SearchAdmin;
  embedder: Embedder;
  store: SearchStore;
  /** search.db's connection when the store is SQLite's, for tests that reach under the ports. */
  db?: SqliteSearchStore['db'];
  /** Builds every tenant's in-memory indexes in slices, yielding between them, so first searches find them ready. */
  warmUp(): Promise<void>;
  /** The tenants whose full-text index this process holds in memory. */
  held(): string[];
  /**
   * Keeps warming up in the background whenever the store changed (writes of other processes too),
   * checking every `everyMs` (`warmed` is told after each warm-up that went through); returns the
   * function that stops it.
   */
  follow(everyMs: number, warmed?: () => void): () => void;
  close(): Promise<void>;
}

export interface SearchCoreOptions extends SearchCoreSettings {
  /**
   * Its stores' adapters, as the composition root picked them: `sqliteSearchStores(file)` (the
   * embedded store) or `pgSearchStores(pool, watch)` (the store every replica shares).
   */
  stores: SearchStores;
}

export interface SearchCoreSettings {
  clock?: Clock;
  /** Its embedder: SEARCH_EMBEDDING_MODEL through the model gateway (services/search/peers/), the built-in one when absent. */
  embedder?: Embedder;
  reranker?: Reranker;
  rerankWeight?: number;
  maxObjectsPerTenant?: number;
  /** Most passages a vector search or a chunk search considers. */
  maxCandidates?: number;
  /** Vector indexes stay exact below this many passages per tenant, then switch to HNSW. */
  exactBelow?: number;
  /**
   * The tenants this process loads at start and keeps loaded as others write (a replica group's);
   * every tenant when absent. Any other tenant's indexes are built on its first search.
   */
  tenants?: readonly string[];
  /** Where queries are counted and the indexes' sizes read on each scrape (telemetry.ts); nothing is counted when absent. */
  metrics?: Metrics;
}

/** Wires the search service over the adapters it is given. */
export function openSearchCore(opts: SearchCoreOptions): SearchCore {
  const clock = opts.clock ?? systemClock;
  const store = opts.stores;
  const { feeds } = store;
  const embedder = opts.embedder ?? hashingEmbedder();
  const index = searchIndex(store.queries, () => feeds.dataVersion());
  const lexical = lexicalSearch(feeds);
  const vectors = vectorSearch(feeds, embedder, { exactBelow: opts.exactBelow });
  const maxCandidates = opts.maxCandidates ?? 1000;
  const rank = ranking({
    index,
    lexical,
    vectors,
    embedder,
    reranker: opts.reranker ?? coverageReranker(),
    rerankWeight: opts.rerankWeight ?? 0.05,
    maxCandidates,
  });
  const { service, add } = createSearchService({
    store: store.objects,
    index,
    vectors,
    ranking: rank,
    embedder,
    clock,
    maxObjectsPerTenant: opts.maxObjectsPerTenant ?? 100_000,
    maxCandidates,
    metrics: opts.metrics,
  });
  if (opts.metrics)
    indexGauges(opts.metrics, {
      counts: () => lexical.counts(),
      memoryBytes: () => lexical.memoryBytes() + vectors.memoryBytes() + index.memoryBytes(),
    });
  const admin = createSearchAdmin({ store: store.admin, add, embedder });
  let closed = false;
  const warmUp = async () => {
    const own = opts.tenants && new Set(opts.tenants);
    for (const tenant of await feeds.tenants()) {
      if (own && !own.has(tenant)) continue;
      while (!closed && ((await lexical.warm(tenant)) || (await vectors.warm(tenant)))) await new Promise((r) => setImmediate(r));
    }
  };
  const follow = (everyMs: number, warmed?: () => void) => {
    let seen = '';
    let running = false;
    const timer = setInterval(() => {
      const now = feeds.dataVersion();
      if (running || closed || now === seen) return;
      running = true;
      warmUp()
        .then(
          () => {
            seen = now;
            warmed?.();
          },
          () => undefined,
        )
        .finally(() => {
          running = false;
        });
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  };
  return {
    service,
    admin,
    embedder,
    store,
    db: 'db' in store ? (store.db as SqliteSearchStore['db']) : undefined,
    warmUp,
    follow,
    held: lexical.held,
    close: async () => {
      closed = true;
      await store.close();
    },
  };
}
