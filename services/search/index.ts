import { z } from 'zod';
import type { Caller } from '../../core/shared/auth/caller';
import { bearerCredentials } from '../../core/shared/auth/credentials';
import { openSearchCore } from '../../core/search';
import { createSearchAdminApi } from '../../core/search/admin-api';
import { adminCredentials } from '../../core/shared/admin/access';
import { SEARCH_PG_MIGRATIONS } from '../../core/search/postgres/schema';
import type { SearchInstance } from './instance';
import type { SearchService } from '../../core/search/service';

export type { SearchInstance };
import { SEARCH_PREFIX } from '../../rest/search/prefix';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { defineService } from '../shared/module';
import { searchCommands } from './cli';
import { embedderFor } from './peers/models';
import { searchStores } from './stores';
import type { ModelsInstance } from '../models';

// The faces (REST routes, subgraph resolvers, REST client) load on first use: a CLI command opens the core alone.
const rest = () => require('../../rest/search') as typeof import('../../rest/search');
const restAdmin = () => require('../../rest/search/admin') as typeof import('../../rest/search/admin');
const subgraphAdmin = () => require('../../subgraphs/search/admin') as typeof import('../../subgraphs/search/admin');
const subgraph = () => require('../../subgraphs/search') as typeof import('../../subgraphs/search');
const client = () => require('../../clients/search') as typeof import('../../clients/search');

const count = (fallback: number, max = 1_000_000_000) => z.coerce.number().int().positive().max(max).default(fallback);

/** The search service's environment variables. */
const Settings = z.object({
  /** Largest file `POST /v2/objects` and the graph's `uploadDocument` accept (413 / PAYLOAD_TOO_LARGE above). */
  SEARCH_MAX_UPLOAD_BYTES: count(25 * 1024 * 1024, 1 << 30),
  /** Live objects one tenant may hold (409 past it). */
  SEARCH_MAX_OBJECTS_PER_TENANT: count(100_000),
  /** Passages per tenant below which dense vectors are searched exactly; HNSW past it (sparse ones are always exact). */
  SEARCH_EXACT_BELOW: count(50_000),
  /** Weight of the re-ranker against the fused rank when `re_ranked` is true (0..1). */
  SEARCH_RERANK_WEIGHT: z.coerce.number().min(0).max(1).default(0.05),
  /**
   * Tenants (comma-separated) this process loads at start and keeps loaded: a replica group's, when
   * the load balancer sends each tenant to its group (docs/postgres.md); every tenant when unset.
   */
  SEARCH_TENANTS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  /**
   * An embedding model of the gateway's catalog to embed passages and queries with (`platform
   * reindex` applies a change); the built-in hashing embedder when absent.
   */
  SEARCH_EMBEDDING_MODEL: z.string().min(1).optional(),
  /** Its vectors' size: the catalog's `dimensions` when the gateway runs in this process. */
  SEARCH_EMBEDDING_DIMENSIONS: z.coerce.number().int().positive().max(65_536).optional(),
  /** An LM key for a gateway that runs elsewhere (`MODELS_URL`); in process, search calls as its own service caller. */
  SEARCH_EMBEDDING_API_KEY: z.string().min(1).optional(),
  /** The gateway's base URL when it runs elsewhere; default PUBLIC_URL. */
  MODELS_URL: z.url().optional(),
  /** How much the model's ranking weighs in hybrid fusion: 1 for a real model (0.03 for the local hashing one). */
  SEARCH_EMBEDDING_FUSION_WEIGHT: z.coerce.number().min(0).max(1).optional(),
});

/** Objects, ingestion and hybrid search under `/cl/search/api` (v1 and v2); the `search` subgraph. */
export const createSearchModule = () =>
  defineService<SearchInstance, typeof Settings, Caller>({
    name: 'search',
    title: 'Search service',
    prefix: SEARCH_PREFIX,
    audience: 'search',
    config: Settings,
    uses: ['models'],
    migrations: SEARCH_PG_MIGRATIONS,
    open: async (deps, { admin }) => {
      const { config, clock, log } = deps;
      const core = openSearchCore({
        stores: searchStores(deps, { admin }),
        embedder: await embedderFor(config, deps.peer<ModelsInstance>('models')),
        clock,
        maxObjectsPerTenant: config.SEARCH_MAX_OBJECTS_PER_TENANT,
        exactBelow: config.SEARCH_EXACT_BELOW,
        rerankWeight: config.SEARCH_RERANK_WEIGHT,
        tenants: config.SEARCH_TENANTS?.length ? config.SEARCH_TENANTS : undefined,
        metrics: deps.metrics,
      });
      // A server builds its in-memory indexes in the background at start and after writes (its own,
      // other workers', `platform ingest`), not on its first searches.
      // Not ready (/readyz) until the first warm-up is done: a load balancer sends searches elsewhere meanwhile.
      let stopFollowing = () => undefined as void;
      let warm = admin;
      if (!admin) {
        core.warmUp().then(
          () => {
            warm = true;
          },
          (err: unknown) => log.error({ err }, 'search: warming the indexes failed; retrying when the store changes'),
        );
        stopFollowing = core.follow(1000, () => {
          warm = true;
        });
      }
      return {
        ...core,
        dataDir: config.PLATFORM_DATA_DIR,
        maxUploadBytes: config.SEARCH_MAX_UPLOAD_BYTES,
        adminApi: createSearchAdminApi({ store: core.store.admin, admin: core.admin, audit: deps.audit }),
        ready: () => warm,
        close: async () => {
          stopFollowing();
          await core.close();
        },
      };
    },
    rest: (core, { config }) => rest().searchRest(core.service, { maxUploadBytes: config.SEARCH_MAX_UPLOAD_BYTES }),
    credentials: () => bearerCredentials,
    subgraph: {
      sdl: () => readSchemaFile('search/search.graphql'),
      resolvers: (core, edge) => {
        const own = subgraph().searchResolvers(core.service, edge.callOf, { maxUploadBytes: core.maxUploadBytes });
        const admin = subgraphAdmin().searchAdminResolvers(core.adminApi, edge.callsFor(adminCredentials));
        return { ...own, Query: { ...own.Query, ...admin.Query }, Mutation: { ...own.Mutation, ...admin.Mutation } };
      },
    },
    admin: (core) => restAdmin().searchAdminRoutes(core.adminApi),
    // The change feed's last million rows (about 50 MB) are kept: far more than a running replica ever lags.
    jobs: [{ name: 'prune the change feed', everyMs: 10 * 60_000, run: (core) => core.store.admin.pruneChanges(1_000_000) }],
    commands: searchCommands,
    client: (opts) => client().searchClient(opts),
    health: (at, signal) => ('instance' in at ? at.instance.service : (at.client as SearchService)).health({}, { signal }),
  });
