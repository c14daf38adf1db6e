import { systemClock, type Clock } from '../shared/clock';
import { loadCatalogFile, type CatalogModel, type CatalogSource, type LoadedCatalog } from './catalog/catalog';
import { liveCatalog, type LiveCatalog } from './catalog/live-catalog';
import { keyCallerOf } from './keys/key-caller';
import { createModelsService } from './models-service';
import { meteredPipeline } from './pipeline';
import type { StatusOf } from '../shared/call-end';
import { apiKeys, type ApiKeys } from './keys/keys';
import { keyLimits } from './keys/limits';
import { meter } from './usage/metering';
import { providerRegistry } from './vendors/registry';
import { KeyOptions } from './keys/key-options';
import { inlineOffload, type Offload } from './offload/offload';
import type { KeyCaller, ModelsService } from './service';
import { DEFAULT_UPSTREAM, upstreamHttp, withoutRetries, type UpstreamSettings } from './upstream/http';
import { createRouter } from './routing/router';
import type { ModelsStores } from './stores';
import type { Env } from './upstream/spec';
import { storedResponses, type StoredResponses } from './answers/stored-responses';
import type { Metrics } from '../shared/telemetry/metrics';
import { noAudit, type AuditTrail } from '../shared/admin/audit';
import { createModelsAdminApi, type ModelsAdminApi } from './admin-api';
import { semanticCache, type SemanticOp } from './answers/semantic-cache';
import { semanticEmbedder } from './answers/semantic-embed';
import { memorySemanticStore } from './answers/semantic-memory';
import { keyRefusals } from './keys/refusals';
import { moneyBudgets, type BudgetCrossing, type MoneyBudgets } from './spend/budgets';
import { budgetWarnings } from './spend/warnings';
import type { KeyCallMeta } from './keys/key-caller';
import { deploymentsOf } from './catalog/catalog';
import type { DeploymentHealth, DeploymentRef } from './routing/health';
import { memoryDeploymentHealth } from './routing/memory-health';
import { cooldownCounter, deploymentGauges } from './routing/health-metrics';

export interface ModelsCore {
  service: ModelsService;
  keys: ApiKeys;
  /**
   * The effective catalog's models now: the file's (or built-in) with the admin API's changes; the
   * same array always, its contents replaced in one step on each change (see `live`).
   */
  catalog: readonly CatalogModel[];
  /** Where each catalog model comes from: built in, the catalog file, the file in place of a built-in, or the admin API. */
  catalogSources: ReadonlyMap<string, CatalogSource>;
  /** The effective catalog with each model's state, kept current from the store (catalog/live-catalog.ts). */
  live: LiveCatalog;
  /** The catalog file's (or built-in) models, before the admin API's changes. */
  fileCatalog: LoadedCatalog;
  /** Where long texts are counted and guarded (shared with the chat proxy of the same process). */
  offload: Offload;
  /** The Responses API's stored responses (`store` not false), per tenant, until they expire. */
  responses: StoredResponses;
  /**
   * The caller an LM key (`<key>[/<options>]`) establishes: 401 when missing, unknown, revoked or
   * expired (a refused key is audited, with `meta`'s address); 400 for a bad option.
   */
  keyCaller(this: void, header: string | undefined, meta?: KeyCallMeta): Promise<KeyCaller>;
  /** The money budgets: reservations, settles, what a key or tenant spent this period (spend/budgets.ts). */
  budgets: MoneyBudgets;
  /** Its part of the admin API (core/models/admin-api): model keys and usage. */
  adminApi: ModelsAdminApi;
  /**
   * The caller another service of this process calls as when it has no LM key of its own (search
   * embedding passages): tenant `_platform`, every model, no limits; its calls are in usage too.
   */
  serviceCaller(name: string): KeyCaller;
  /**
   * Each deployment's cooldown, calls in flight and latency (issue 35): the router reads and
   * reports it on every call; shared by every replica when the stores share it (Redis).
   */
  health: DeploymentHealth;
  /** Every deployment of the effective catalog's models now (what the health's `states` are asked of). */
  deployments(this: void): DeploymentRef[];
  /** Deletes expired cached answers and stored responses, and request counts older than their window (a background job). */
  prune(): Promise<number>;
  close(): Promise<void>;
}

export interface ModelsCoreOptions {
  /**
   * Its ports' adapters, as the composition root picked them: `sqliteModelsStores(file)`
   * (core/models/sqlite), with `pgModelsStores(pool)` (core/models/postgres) and
   * `redisModelsStores(client)` (core/models/redis) in place of some. Closing the core closes them.
   */
  stores: ModelsStores;
  clock?: Clock;
  /** A catalog JSON file; the built-in catalog when absent. */
  catalogFile?: string;
  /** How often another process's catalog change is looked for (ms; default 500; 0 never: the CLI reads it once). */
  catalogPollMs?: number;
  /** Told when the catalog's store cannot be read (the catalog last read keeps serving), or a stored model is left out. */
  onCatalogError?: (err: Error) => void;
  /** How long a stored response is kept (default 30 days, as OpenAI), and the most JSON it may hold (default 8 MiB). */
  responsesTtlDays?: number;
  responsesMaxBytes?: number;
  /** Told when the limit counts fail (the call goes on without them). */
  onStoreError?: (what: 'limits' | 'spend', err: Error) => void;
  /** Told (a log line) when a key's or tenant's spend first crosses its budget's warning fraction in a period. */
  onBudgetWarning?: (w: BudgetCrossing) => void;
  /**
   * Where the catalog's credential variables are read: the composition root passes the process's
   * environment (services/models); none given, no upstream credential is found (the built-in models need none).
   */
  env?: Env;
  upstream?: Partial<UpstreamSettings>;
  /** Worker threads for long texts (offload.ts); everything in the event loop when absent. Closed with the core. */
  offload?: Offload;
  /** The number a usage row keeps for how its call ended (core/shared/call-end.ts; the HTTP edge's: edge/http/call-status.ts). */
  statusOf: StatusOf;
  /** Where each call's figures are counted (call-metrics.ts); nothing is counted when absent. */
  metrics?: Metrics;
  /** Where admin changes and refused keys are recorded (core/shared/admin/audit.ts); nowhere when absent. */
  audit?: AuditTrail;
  /**
   * The semantic cache (`semantic_cache` key option, answers/semantic-cache.ts): the catalog's
   * embedding model it uses (default `local-embed`), how long its entries are kept (the answer
   * cache's TTL; default an hour), and where its failures are told (the call goes on without it).
   */
  semanticCache?: { model?: string; ttlMs?: number; onError?: (op: SemanticOp, err: Error) => void };
}

/** Wires the models service over its catalog, its providers and the adapters it is given. */
export function openModelsCore(opts: ModelsCoreOptions): ModelsCore {
  const file = loadCatalogFile(opts.catalogFile);
  const { stores } = opts;
  const live = liveCatalog({ file, store: stores.catalog, pollMs: opts.catalogPollMs ?? 500, onError: opts.onCatalogError });
  const clock = opts.clock ?? systemClock;
  const keys = apiKeys(stores.keys, clock);
  const { usage, cache } = stores;
  const limits = keyLimits({ clock, counters: stores.limits, onError: (err) => opts.onStoreError?.('limits', err as Error) });
  const responses = storedResponses({
    store: stores.responses,
    clock,
    ttlMs: (opts.responsesTtlDays ?? 30) * 86_400_000,
    maxBytes: opts.responsesMaxBytes ?? 8 * 2 ** 20,
  });
  const http = upstreamHttp({ ...DEFAULT_UPSTREAM, ...opts.upstream });
  const offload = opts.offload ?? inlineOffload();
  const providerOf = providerRegistry({ env: opts.env ?? {}, http, offload });
  const onCooldown = cooldownCounter(opts.metrics);
  const health = stores.health ? stores.health(onCooldown) : memoryDeploymentHealth({ onCooldown });
  const deployments = () => live.models.flatMap((m) => deploymentsOf(m).map((d) => ({ model: m.id, deployment: d.id })));
  if (opts.metrics) deploymentGauges(opts.metrics, () => health.states(deployments(), clock.now()));
  // A routed model's deployments are called without the transport's retries: the router retries and fails over (routing/router.ts).
  const routedProviderOf = providerRegistry({ env: opts.env ?? {}, http: withoutRetries(http), offload });
  const router = createRouter({
    providerOf: (model, dep, routed) =>
      (routed ? routedProviderOf : providerOf)({ ...model, upstream: dep.upstream }, `${model.id}@${dep.id}`),
    health,
    counters: stores.limits,
    lookup: (id) => live.current().byId.get(id)?.model,
    clock,
    metrics: opts.metrics,
  });
  const budgets = moneyBudgets({
    clock,
    counters: stores.spend,
    tenants: stores.budgets,
    onWarning: budgetWarnings({ audit: opts.audit ?? noAudit, metrics: opts.metrics, log: opts.onBudgetWarning }),
    onError: (err) => opts.onStoreError?.('spend', err as Error),
  });
  const meters = meter({ clock, usage, limits, offload, statusOf: opts.statusOf, metrics: opts.metrics, budgets });
  const metered = meteredPipeline({ limits, budgets, clock, providerOf, router, meter: meters });
  const sc = opts.semanticCache ?? {};
  const semantic = {
    cache: semanticCache({
      cache,
      store: stores.semantic ?? memorySemanticStore(),
      clock,
      ttlMs: sc.ttlMs ?? 3_600_000,
      onError: sc.onError,
    }),
    embed: semanticEmbedder({ catalog: live, model: sc.model ?? 'local-embed', providerOf, meter: meters, offload, clock }),
  };
  const service = createModelsService({ catalog: live, usage, cache, offload, clock, providerOf, metered, semantic });
  return {
    service,
    keys,
    catalog: live.models,
    catalogSources: live.sources,
    live,
    fileCatalog: file,
    offload,
    responses,
    budgets,
    keyCaller: keyCallerOf(keys, keyRefusals({ audit: opts.audit ?? noAudit, clock, keys })),
    adminApi: createModelsAdminApi({
      keys,
      usage,
      audit: opts.audit ?? noAudit,
      clock,
      catalog: live,
      budgets,
      tenantBudgets: stores.budgets,
      health,
    }),
    serviceCaller: (name) => ({
      key: {
        id: `service:${name}`,
        prefix: '',
        name,
        tenant: '_platform',
        models: null,
        requestsPerMinute: null,
        tokenBudget: null,
        createdAt: new Date(0),
        revokedAt: null,
        expiresAt: null,
      },
      options: KeyOptions.parse({}),
    }),
    health,
    deployments,
    prune: async () => cache.sweep() + (await limits.prune()) + (await responses.prune()),
    close: async () => {
      live.close();
      await offload.close();
      await http.close();
      await usage.flush();
      await health.close();
      stores.close();
    },
  };
}
