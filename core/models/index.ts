import { systemClock, type Clock } from '../shared/clock';
import { answerCache, type CacheOp, type ChatCache } from './cache';
import { loadCatalogFile, type CatalogModel, type CatalogSource } from './catalog';
import { gatewayService, keyCallerOf } from './gateway';
import { apiKeys, type ApiKeys } from './keys';
import { keyLimits } from './limits';
import { meter } from './metering';
import { providerRegistry } from './vendors/registry';
import { KeyOptions } from './key-options';
import { inlineOffload, type Offload } from './offload';
import type { KeyCaller, ModelsService } from './service';
import { DEFAULT_UPSTREAM, upstreamHttp, type UpstreamSettings } from './upstream/http';
import type { Env } from './upstream/spec';
import { openModelsDb, sqliteAnswerStore, sqliteKeyStore, sqliteLimitCounters, sqliteResponseStore, sqliteUsageStore } from './sqlite';
import type { KeyStore, LimitCounters, ResponseStore, UsageStore } from './ports';
import { storedResponses, type StoredResponses } from './stored-responses';
import type { Metrics } from '../shared/telemetry/metrics';

export interface ModelsCore {
  service: ModelsService;
  keys: ApiKeys;
  catalog: readonly CatalogModel[];
  /** Where each catalog model comes from: built in, the catalog file, or the file in place of a built-in. */
  catalogSources: ReadonlyMap<string, CatalogSource>;
  /** Where long texts are counted and guarded (shared with the chat proxy of the same process). */
  offload: Offload;
  /** The Responses API's stored responses (`store` not false), per tenant, until they expire. */
  responses: StoredResponses;
  /** The caller an LM key (`<key>[/<options>]`) establishes: 401 when missing, unknown or revoked; 400 for a bad option. */
  keyCaller(header: string | undefined): Promise<KeyCaller>;
  /**
   * The caller another service of this process calls as when it has no LM key of its own (search
   * embedding passages): tenant `_platform`, every model, no limits; its calls are in usage too.
   */
  serviceCaller(name: string): KeyCaller;
  /** Deletes expired cached answers and stored responses, and request counts older than their window (a background job). */
  prune(): Promise<number>;
  close(): Promise<void>;
}

export interface ModelsCoreOptions {
  /** SQLite file, or `:memory:`. */
  file: string;
  clock?: Clock;
  durable?: boolean;
  /** A catalog JSON file; the built-in catalog when absent. */
  catalogFile?: string;
  /** How long a cached answer is served (`is_cache` 1). */
  cacheTtlSeconds?: number;
  /** A cache elsewhere (Redis) instead of the one in the SQLite file. */
  cache?: ChatCache;
  /**
   * Shared stores instead of the SQLite file's (PostgreSQL for keys, usage and stored responses,
   * Redis for the limit counts), so every replica sees the same keys, totals, limits and responses.
   */
  shared?: { keys?: KeyStore; usage?: UsageStore; limits?: LimitCounters; responses?: ResponseStore };
  /** How long a stored response is kept (default 30 days, as OpenAI), and the most JSON it may hold (default 8 MiB). */
  responsesTtlDays?: number;
  responsesMaxBytes?: number;
  /** Bounds of the cache in the SQLite file (default 10,000 answers, 64 MiB). */
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  /** Told when the cache or the limit counts fail (the call goes on without the cache). */
  onStoreError?: (what: CacheOp | 'limits', err: Error) => void;
  /**
   * Where the catalog's credential variables are read: the composition root passes the process's
   * environment (services/models); none given, no upstream credential is found (the built-in models need none).
   */
  env?: Env;
  upstream?: Partial<UpstreamSettings>;
  /** Worker threads for long texts (offload.ts); everything in the event loop when absent. Closed with the core. */
  offload?: Offload;
  /** The HTTP status an error stands for (the usage records keep it). */
  statusOf(err: unknown): number;
  /** Where each call's figures are counted (call-metrics.ts); nothing is counted when absent. */
  metrics?: Metrics;
}

/**
 * Wires the model gateway over its catalog, its providers and its stores: the one place that picks
 * the adapters of its ports (all of them in models.db; the answers elsewhere when `cache` is given).
 */
export function openModelsCore(opts: ModelsCoreOptions): ModelsCore {
  const { models: catalog, sources: catalogSources } = loadCatalogFile(opts.catalogFile);
  const db = openModelsDb(opts.file, { durable: opts.durable });
  const clock = opts.clock ?? systemClock;
  const keys = apiKeys(opts.shared?.keys ?? sqliteKeyStore(db), clock);
  const usage = opts.shared?.usage ?? sqliteUsageStore(db);
  const limits = keyLimits({ clock, counters: opts.shared?.limits ?? sqliteLimitCounters(db), onError: (err) => opts.onStoreError?.('limits', err as Error) });
  const cacheBytes = opts.cacheMaxBytes ?? 64 * 2 ** 20;
  const answers = sqliteAnswerStore(db, { clock, maxEntries: opts.cacheMaxEntries ?? 10_000, maxBytes: cacheBytes });
  const cache = opts.cache ?? answerCache(answers, {
    ttlMs: (opts.cacheTtlSeconds ?? 3600) * 1000, maxEntryBytes: Math.min(2 ** 20, Math.floor(cacheBytes / 10)),
    onError: (op, err) => opts.onStoreError?.(op, err),
  });
  const responses = storedResponses({
    store: opts.shared?.responses ?? sqliteResponseStore(db), clock,
    ttlMs: (opts.responsesTtlDays ?? 30) * 86_400_000, maxBytes: opts.responsesMaxBytes ?? 8 * 2 ** 20,
  });
  const http = upstreamHttp({ ...DEFAULT_UPSTREAM, ...opts.upstream });
  const offload = opts.offload ?? inlineOffload();
  const providerOf = providerRegistry({ env: opts.env ?? {}, http, offload });
  const service = gatewayService({ catalog, keys, usage, cache, limits, meter: meter({ clock, usage, limits, offload, metrics: opts.metrics }), offload, clock, providerOf, statusOf: opts.statusOf });
  return {
    service, keys, catalog, catalogSources, offload, responses,
    keyCaller: keyCallerOf(keys),
    serviceCaller: (name) => ({
      key: { id: `service:${name}`, prefix: '', name, tenant: '_platform', models: null, requestsPerMinute: null, tokenBudget: null, createdAt: new Date(0), revokedAt: null },
      options: KeyOptions.parse({}),
    }),
    prune: async () => (opts.cache ? 0 : answers.sweep()) + (await limits.prune()) + (await responses.prune()),
    close: async () => {
      await offload.close();
      await http.close();
      await usage.flush();
      db.close();
    },
  };
}
