import { readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AdminConnection } from '../clients/admin/connection';
import { seg } from '../clients/admin/connection';
import type { AuditTrail } from '../core/shared/admin/audit';
import type { Clock } from '../core/shared/clock';
import type { Config } from '../core/shared/config';
import type { Ctx } from '../core/shared/context';
import type { Admin } from '../core/shared/admin/access';
import type { PgPool } from '../core/shared/postgres';
import type { Metrics } from '../core/shared/telemetry/metrics';
import { UsageError } from '../services/shared/cli';
export { GRAPHQL_USAGE } from './graphql-usage';
import { consoleBuildDir } from '../gateway/console';
import { trustedDocumentsAdmin, type TrustedDocumentsAdmin } from '../gateway/trusted/admin-api';
import { consoleList, type BuiltInList } from '../gateway/trusted/built-in';
import { trustedDocuments, type TrustedDocuments } from '../gateway/trusted/enforce';
import { DEFAULT_MANIFEST_LIMITS } from '../gateway/trusted/manifest';
import { trustedRegistry } from '../gateway/trusted/registry';
import { sqliteTrustedStore, type TrustedStore } from '../gateway/trusted/store';
import { graphqlDocumentsRoutes } from '../rest/admin/graphql-documents';
import { graphqlLimitsOf } from './graphql-limits';
import type { AdminFace } from '../rest/shared/routes';

// Loaded only when configured, as bin/audit.ts loads its stores.
const postgres = () => require('../core/shared/postgres') as typeof import('../core/shared/postgres');
const pgStore = () => require('../gateway/trusted/postgres-store') as typeof import('../gateway/trusted/postgres-store');
const planner = () => require('../gateway/apollo-planner') as typeof import('../gateway/apollo-planner');

/**
 * Where the trusted documents are kept: PostgreSQL when DATABASE_URL is set (its own small pool when
 * the process has none, a gateway served alone), else the data directory's `trusted-documents.db`.
 */
export async function openTrustedStore(config: Config, pool: PgPool | undefined, admin = false): Promise<TrustedStore> {
  if (!config.DATABASE_URL) return sqliteTrustedStore(join(config.PLATFORM_DATA_DIR, 'trusted-documents.db'), { durable: admin });
  const own = pool ? undefined : postgres().openPool(config.DATABASE_URL, { max: 2 });
  const store = await pgStore().pgTrustedStore(config.DATABASE_URL, pool ?? own!);
  return { ...store, close: async () => void (await own?.end()) };
}

/** The graph's API schema, built once, on first use (a manifest's documents are validated against it). */
export const lazyApiSchema = (supergraphSdl: () => string, log: Logger): (() => GraphQLSchema) => {
  let schema: GraphQLSchema | undefined;
  return () => (schema ??= planner().apolloPlanner(supergraphSdl(), log).apiSchema);
};

/**
 * The platform's own list, its web console's operations (`npm run build` writes them next to the
 * console), whenever trusted documents are on (log or refuse): off, nothing is checked.
 */
export function builtInLists(config: Config, opts: { schema: () => GraphQLSchema; log: Logger }) {
  if (config.GRAPHQL_TRUSTED_DOCUMENTS === 'off') return undefined;
  return consoleList(join(consoleBuildDir(), 'trusted-documents.json'), { schema: opts.schema, log: opts.log });
}

/** What a process serving the graph runs: the lists in memory, the mode's policy, the admin routes. */
export async function servedTrustedDocuments(opts: {
  config: Config;
  pool: PgPool | undefined;
  /** The graph's API schema: the gateway's own (its planner's), so the supergraph is built once. */
  schema: () => GraphQLSchema;
  log: Logger;
  metrics: Metrics;
  audit: AuditTrail;
  clock: Clock;
}): Promise<{ policy: TrustedDocuments; face: AdminFace; close(): Promise<void> }> {
  const { schema } = opts;
  const builtIn: BuiltInList | undefined = builtInLists(opts.config, { schema, log: opts.log });
  const store = await openTrustedStore(opts.config, opts.pool);
  const registry = await trustedRegistry(store, { log: opts.log, builtIn: builtIn?.documents }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const admin = trustedDocumentsAdmin({
    store,
    schema,
    audit: opts.audit,
    clock: opts.clock,
    changed: () => registry.refresh(),
    bounds: graphqlLimitsOf(opts.config),
    builtIn,
  });
  return {
    policy: trustedDocuments(registry, { mode: opts.config.GRAPHQL_TRUSTED_DOCUMENTS, log: opts.log, metrics: opts.metrics }),
    face: graphqlDocumentsRoutes(admin),
    async close() {
      registry.close();
      await store.close();
    },
  };
}

/** The manifest of a file, within the bounds a manifest has (larger than the admin API's body limit). */
function readManifest(file: string): unknown {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  if (size > DEFAULT_MANIFEST_LIMITS.maxBytes)
    throw new UsageError(`${file} is larger than ${DEFAULT_MANIFEST_LIMITS.maxBytes} bytes, a manifest's limit`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
  }
}

type Flags = Record<string, string | undefined>;

/** The command's words as one of its three actions. */
function actionOf(
  words: string[],
  flags: Flags,
): { verb: 'load'; file: string; app: string } | { verb: 'list' } | { verb: 'remove'; app: string } {
  const [noun, verb, arg, ...extra] = words;
  if (noun !== 'documents') throw new UsageError(`graphql takes 'documents load|list|remove', not '${words.join(' ')}'`);
  if (extra.length) throw new UsageError(`unexpected '${extra.join(' ')}'`);
  if (verb === 'list' && arg === undefined) return { verb };
  if (verb === 'load' && arg) return { verb, file: arg, app: flags.name ?? basename(arg, extname(arg)) };
  if (verb === 'remove' && arg) return { verb, app: arg };
  throw new UsageError(`graphql documents takes 'load <file> [--name APP]', 'list' or 'remove <APP>'`);
}

/** `platform graphql documents ...` on the data directory's (or DATABASE_URL's) lists. */
export async function localGraphqlCommand(api: TrustedDocumentsAdmin, ctx: Ctx<Admin>, words: string[], flags: Flags): Promise<unknown> {
  const action = actionOf(words, flags);
  if (action.verb === 'list') return api.list(ctx);
  if (action.verb === 'load') return api.load({ app: action.app, manifest: readManifest(action.file) }, ctx);
  await api.remove(action.app, ctx);
  return { app: action.app, removed: true };
}

/** The same through a remote platform's admin API (`--url`). */
export async function remoteGraphqlCommand(admin: AdminConnection, words: string[], flags: Flags): Promise<unknown> {
  const action = actionOf(words, flags);
  if (action.verb === 'list') return (await admin.request<{ items: unknown[] }>('GET', '/graphql/documents')).items;
  if (action.verb === 'load') return admin.request('POST', `/graphql/documents/${seg(action.app)}`, { json: readManifest(action.file) });
  await admin.request('DELETE', `/graphql/documents/${seg(action.app)}`);
  return { app: action.app, removed: true };
}

/** `platform graphql documents ...` on a data directory: opens the lists' store and the audit trail, nothing else. */
export async function graphqlCommand(config: Config, words: string[], flags: Flags): Promise<unknown> {
  const { sharedDeps } = require('./deps') as typeof import('./deps');
  const { SERVICES } = require('../services/registry') as typeof import('../services/registry');
  const { graphSources, supergraphOf } = require('../gateway/supergraph') as typeof import('../gateway/supergraph');
  const { cliCtx } = require('../services/shared/admin-cli') as typeof import('../services/shared/admin-cli');
  actionOf(words, flags);
  const log = (require('pino') as typeof import('pino')).pino({ level: 'silent' });
  const platform = sharedDeps(config, SERVICES, log);
  await platform.connect(SERVICES, { admin: true });
  try {
    const store = await openTrustedStore(config, platform.deps.postgres, true);
    try {
      const sources = () => graphSources(SERVICES.filter((m) => m.subgraph).map((m) => ({ name: m.name, sdl: m.subgraph!.sdl() })));
      const schema = lazyApiSchema(() => supergraphOf(sources()), log);
      const api = trustedDocumentsAdmin({
        store,
        schema,
        audit: platform.deps.audit,
        clock: platform.deps.clock,
        bounds: graphqlLimitsOf(config),
        // The console's list, in the modes that load it: listed, and its ids taken.
        builtIn: builtInLists(config, { schema, log }),
      });
      return await localGraphqlCommand(api, cliCtx(), words, flags);
    } finally {
      await store.close();
    }
  } finally {
    await platform.close();
  }
}
