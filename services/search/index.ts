import { join } from 'node:path';
import { z } from 'zod';
import { openSearchCore, type SearchCore } from '../../core/search';
import { SEARCH_PREFIX, searchRest } from '../../rest/search';
import { readSchemaFile } from '../../subgraphs/sdl';
import { searchResolvers } from '../../subgraphs/search';
import { defineService } from '../module';
import { searchCommands } from './cli';

const count = (fallback: number, max = 1_000_000_000) => z.coerce.number().int().positive().max(max).default(fallback);

/** The search service's environment variables. */
const Settings = z.object({
  /** Largest file `POST /v2/objects` accepts (413 above). */
  SEARCH_MAX_UPLOAD_BYTES: count(25 * 1024 * 1024, 1 << 30),
  /** Live objects one tenant may hold (409 past it). */
  SEARCH_MAX_OBJECTS_PER_TENANT: count(100_000),
  /** Passages per tenant below which dense vectors are searched exactly; HNSW past it (sparse ones are always exact). */
  SEARCH_EXACT_BELOW: count(50_000),
  /** Weight of the re-ranker against the fused rank when `re_ranked` is true (0..1). */
  SEARCH_RERANK_WEIGHT: z.coerce.number().min(0).max(1).default(0.05),
});

export interface SearchInstance extends SearchCore {
  dataDir: string;
}

/** Objects, ingestion and hybrid search under `/cl/search/api` (v1 and v2); the `search` subgraph. */
export const createSearchModule = () => defineService<SearchInstance, typeof Settings>({
  name: 'search',
  title: 'Search service',
  prefix: SEARCH_PREFIX,
  audience: 'search',
  config: Settings,
  open: ({ config, clock, log }, { admin }) => {
    const core = openSearchCore({
      file: join(config.PLATFORM_DATA_DIR, 'search.db'),
      clock,
      durable: admin,
      maxObjectsPerTenant: config.SEARCH_MAX_OBJECTS_PER_TENANT,
      exactBelow: config.SEARCH_EXACT_BELOW,
      rerankWeight: config.SEARCH_RERANK_WEIGHT,
    });
    // A server builds its in-memory indexes in the background at start and after writes (its own,
    // other workers', `platform ingest`), not on its first searches.
    let stopFollowing = () => undefined as void;
    if (!admin) {
      core.warmUp().catch((err: unknown) => log.error({ err }, 'search: warming the indexes failed'));
      stopFollowing = core.follow(1000);
    }
    return {
      ...core,
      dataDir: config.PLATFORM_DATA_DIR,
      close: () => {
        stopFollowing();
        core.close();
      },
    };
  },
  rest: (core, { config }) => searchRest(core.service, { maxUploadBytes: config.SEARCH_MAX_UPLOAD_BYTES }),
  subgraph: { sdl: () => readSchemaFile('search.graphql'), resolvers: (core) => searchResolvers(core.service) },
  commands: searchCommands,
});
