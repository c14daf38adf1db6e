import { z } from 'zod';
import { modelKeyCredentials } from '../../core/shared/auth/credentials';
import { adminCredentials } from '../../core/shared/admin/access';
import type { KeyCaller } from '../../core/models/service';
import { openModelsCore } from '../../core/models';
import { MODELS_PG_MIGRATIONS } from '../../core/models/postgres/schema';
import type { ModelsInstance } from './instance';

export type { ModelsInstance };
import { catalogReport } from '../../core/models/catalog/catalog-report';
import { semanticModelProblem } from '../../core/models/answers/semantic-embed';
import { loadTokenizer } from '../../core/models/prompt/tokens';
import { defaultOffload } from '../../core/models/offload/offload';
import { MODELS_PREFIX } from '../../rest/models/prefix';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { defineService } from '../shared/module';
import { modelsCommands } from './cli';
import { modelsStores } from './stores';

// The faces (REST routes, subgraph resolvers, REST client) load on first use: a CLI command opens the core alone.
const rest = () => require('../../rest/models') as typeof import('../../rest/models');
const subgraph = () => require('../../subgraphs/models') as typeof import('../../subgraphs/models');
const client = () => require('../../clients/models') as typeof import('../../clients/models');
const adminKeys = () => require('../../rest/models/admin/keys') as typeof import('../../rest/models/admin/keys');
const adminUsage = () => require('../../rest/models/admin/usage') as typeof import('../../rest/models/admin/usage');
const adminCatalog = () => require('../../rest/models/admin/catalog') as typeof import('../../rest/models/admin/catalog');
const adminBudgets = () => require('../../rest/models/admin/tenant-budgets') as typeof import('../../rest/models/admin/tenant-budgets');
const keysGraph = () => require('../../subgraphs/models/admin-keys') as typeof import('../../subgraphs/models/admin-keys');
const catalogGraph = () => require('../../subgraphs/models/admin-catalog') as typeof import('../../subgraphs/models/admin-catalog');
const callStatus = () => (require('../../edge/http/call-status') as typeof import('../../edge/http/call-status')).callStatus;

/** The semantic cache's embedding model when MODELS_SEMANTIC_CACHE_MODEL is unset: the built-in, offline one. */
const DEFAULT_SEMANTIC_MODEL = 'local-embed';

/** The first start's LM key's name (DECISIONS: the first start creates one for the demo tenant). */
const DEMO_KEY = 'demo';

/** The model gateway's environment variables. */
const Settings = z.object({
  /** A JSON catalog of models added to the built-in `local-chat`, `local-embed` and `local-image` (docs/decisions.md, docs/catalog.example.json). */
  MODELS_CATALOG_FILE: z.string().min(1).optional(),
  /** Seconds a cached answer is served to identical requests of the same tenant (`is_cache` 1). */
  MODELS_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86400)
    .default(3600),
  /** Milliseconds to connect to an upstream model server. */
  MODELS_UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  /** Milliseconds to wait for an upstream's answer to start, and then between two pieces of it. */
  MODELS_UPSTREAM_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Retries after an upstream's 429, 5xx or failed connection, before any of its answer was read. */
  MODELS_UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /**
   * The catalog's embedding model the semantic cache (`semantic_cache` key option) embeds prompts
   * with (`local-embed` when unset); checked at start: an active embedding model of the catalog.
   */
  MODELS_SEMANTIC_CACHE_MODEL: z.string().min(1).optional(),
  /** MiB of cached answers kept in models.db, shared by every worker (the expired, then the oldest, go first). */
  MODELS_CACHE_MAX_MB: z.coerce
    .number()
    .int()
    .min(1)
    .max(64 * 1024)
    .default(64),
  /**
   * Worker threads per process that count and guard long prompts (more than 8,192 characters), so
   * that they never hold up other requests; 0 does it in the event loop.
   */
  MODELS_TEXT_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  /** Days a stored Responses API response (`store` not false) is kept for `previous_response_id`, `item_reference` and `GET /responses/{id}` (OpenAI: 30). */
  MODELS_RESPONSES_TTL_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** MiB of JSON a stored response's conversation may hold (images included); a longer one is refused unless `store` is false. */
  MODELS_RESPONSES_MAX_MB: z.coerce.number().int().min(1).max(1024).default(8),
});

/** One door to many language models under `/proxy/api/v1`: catalog, keys, the provider routes of groups A, B and C, usage; the `models` subgraph. */
export const createModelsModule = () =>
  defineService<ModelsInstance, typeof Settings, KeyCaller>({
    name: 'models',
    title: 'Model gateway',
    prefix: MODELS_PREFIX,
    audience: 'models',
    config: Settings,
    migrations: MODELS_PG_MIGRATIONS,
    open: async (deps, { admin }) => {
      const { config, clock, log, metrics } = deps;
      const onStoreError = (what: string, err: Error) => log.warn({ what, err: err.message }, 'models: a shared store failed');
      const core = openModelsCore({
        stores: modelsStores(deps, { admin, onError: onStoreError }),
        clock,
        catalogFile: config.MODELS_CATALOG_FILE,
        env: process.env,
        responsesTtlDays: config.MODELS_RESPONSES_TTL_DAYS,
        responsesMaxBytes: config.MODELS_RESPONSES_MAX_MB * 2 ** 20,
        offload: defaultOffload(admin ? 0 : config.MODELS_TEXT_THREADS),
        onStoreError,
        onBudgetWarning: (w) =>
          log.warn(
            { kind: w.kind, id: w.id, tenant: w.tenant, budgetUsd: w.budget.usd, period: w.budget.period, spentUsd: w.spent },
            `models: a ${w.kind} budget passed ${Math.round(w.budget.warnAt * 100)}% of ${w.budget.usd} USD`,
          ),
        statusOf: (end) => callStatus()(end),
        metrics,
        audit: deps.audit,
        semanticCache: {
          model: config.MODELS_SEMANTIC_CACHE_MODEL ?? DEFAULT_SEMANTIC_MODEL,
          ttlMs: config.MODELS_CACHE_TTL_SECONDS * 1000,
          onError: (op, err) => log.warn({ op, err: err.message }, 'models: the semantic cache failed; answering without it'),
        },
        upstream: {
          connectTimeoutMs: config.MODELS_UPSTREAM_CONNECT_TIMEOUT_MS,
          readTimeoutMs: config.MODELS_UPSTREAM_READ_TIMEOUT_MS,
          retries: config.MODELS_UPSTREAM_RETRIES,
        },
      });
      if (!admin) {
        // A semantic cache that could never embed: a start naming its model refuses; with the default
        // (`local-embed`, which an administrator may have deactivated) the semantic cache only misses.
        await core.live.ready;
        const problem = semanticModelProblem(core.live.current(), config.MODELS_SEMANTIC_CACHE_MODEL ?? DEFAULT_SEMANTIC_MODEL);
        if (problem && config.MODELS_SEMANTIC_CACHE_MODEL) {
          await core.close();
          throw new Error(`MODELS_SEMANTIC_CACHE_MODEL: ${problem}; name an active embedding model of the catalog`);
        }
        if (problem) log.warn(`models: the semantic cache cannot embed (${problem}): set MODELS_SEMANTIC_CACHE_MODEL`);
        setImmediate(loadTokenizer);
        const report = catalogReport({ models: [...core.catalog], sources: core.catalogSources }, process.env);
        log.info(
          { catalog: config.MODELS_CATALOG_FILE ?? 'built-in', models: report.models },
          `models: the catalog offers ${report.models.map((m) => m.id).join(', ')}`,
        );
        for (const w of report.warnings) log.warn(`models: ${w}`);
      }
      return {
        ...core,
        dataDir: config.PLATFORM_DATA_DIR,
        close: () => core.close(),
      };
    },
    rest: (core) => rest().modelsRest(core.service, core.responses),
    credentials: (core) => modelKeyCredentials(core.keyCaller),
    // The admin API's model keys, usage, catalog and tenants' budgets (paths relative to /admin/api/v1).
    admin: (core) => {
      const [keys, usage, catalog, tenantBudgets] = [adminKeys(), adminUsage(), adminCatalog(), adminBudgets()];
      return {
        routes: [
          ...keys.keyRoutes(core.adminApi),
          ...usage.usageRoutes(core.adminApi),
          ...catalog.catalogAdminRoutes(core.adminApi),
          ...tenantBudgets.tenantBudgetRoutes(core.adminApi),
        ],
        schemas: {
          AdminModelKey: keys.AdminModelKey,
          AdminNewModelKey: keys.AdminNewModelKey,
          AdminUsageRow: usage.AdminUsageRow,
          AdminModel: catalog.AdminModel,
        },
      };
    },
    subgraph: {
      // The gateway's fields, then the admin API's (catalog, keys, usage): one SDL, in two files by what they hold.
      sdl: () => readSchemaFile('models/models.graphql') + readSchemaFile('models/admin.graphql'),
      // The gateway's fields take the `api-key`; the admin fields an administrator's bearer token.
      resolvers: (core, edge) => {
        const own = subgraph().modelsResolvers(core.service, edge.callOf);
        const adminOf = edge.callsFor(adminCredentials);
        const keys = keysGraph().keysAdminResolvers(core.adminApi, adminOf);
        const catalog = catalogGraph().catalogAdminResolvers(core.adminApi, adminOf);
        return {
          ...own,
          ...catalog,
          Query: { ...own.Query, ...catalog.Query, ...keys.Query },
          Mutation: { ...own.Mutation, ...catalog.Mutation, ...keys.Mutation },
        };
      },
    },
    client: (opts) => client().modelsClient(opts),
    commands: modelsCommands,
    jobs: [{ name: 'prune expired cached answers, stored responses and request counts', everyMs: 60_000, run: (core) => core.prune() }],
    /**
     * DECISIONS: the first start creates an LM key for the demo tenant; later starts keep it while it
     * works. On a shared database another replica's demo key (live or revoked) is the platform's: a
     * replica that joins makes none of its own.
     */
    bootstrap: async (core, current, ctx): Promise<Record<string, string>> => {
      if (current.api_key && (await core.keys.verify(current.api_key))) return { api_key: current.api_key };
      if (!current.tenant_id) return {};
      if (ctx.shared && (await core.keys.list(current.tenant_id)).some((k) => k.name === DEMO_KEY)) {
        ctx.joined();
        return {};
      }
      return { api_key: (await core.keys.create({ name: DEMO_KEY, tenant: current.tenant_id })).apiKey };
    },
  });
