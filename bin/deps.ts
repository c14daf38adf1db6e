import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { remoteJwksKeySource } from '../core/shared/auth/key-sources';
import type { RevocationFollower } from '../core/shared/auth/revocation-feed';
import { createRevocationList } from '../core/shared/auth/revocations';
import { createTokenVerifier, issuerBaseFor, type KeySource } from '../core/shared/auth/verifier';
import { systemClock, type Clock } from '../core/shared/clock';
import type { Config, ConfigParts } from '../core/shared/config';
import { createFairPool, type FairPool, type FairPoolOptions } from '../core/shared/fair-pool';
import { audienceOf, type ServiceInstance, type ServiceModule, type SharedDeps } from '../services/shared/module';
import type { OpenedRedis } from '../core/shared/redis';
import { noMetrics, type Metrics } from '../core/shared/telemetry/metrics';
import { followRevocationFeed } from './revocations';
import { randomUUID } from 'node:crypto';
import { auditTrail } from '../core/shared/admin/audit';
import { lateAuditStore, openAuditStore } from './audit';
import { workerPools, type Channel } from './shared-pools';

// Loaded only when configured: commands and SQLite deployments never load the drivers.
const postgres = () => require('../core/shared/postgres') as typeof import('../core/shared/postgres');
const redisClient = () => require('../core/shared/redis') as typeof import('../core/shared/redis');

/** How a first-start bootstrap runs beside other processes on the same stores (bin/bootstrap.ts). */
export interface BootstrapScope {
  /** The stores are shared with other data directories (PostgreSQL). */
  shared: boolean;
  /** Runs the bootstrap while no other process bootstraps the same stores (an advisory lock on PostgreSQL). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** Any fixed number (another than the migrations'): the advisory lock under which replicas bootstrap one at a time. */
const BOOTSTRAP_LOCK = 0x626f6f74; // "boot"

/** What the registered services add to the configuration. */
export const configParts = (modules: readonly ServiceModule[]): ConfigParts => ({
  schemas: modules.flatMap((m) => (m.config ? [m.config] : [])),
  subgraphs: modules.filter((m) => m.subgraph).map((m) => m.name),
});

export interface Opened {
  module: ServiceModule;
  instance: ServiceInstance;
}

/**
 * The dependencies every service is built from. Keys come from a service of this process that
 * holds them (the first opened that offers a key source) or else from the issuer's JWKS
 * (AUTH_ISSUER_URL), decided on first use, so services can be opened in any order.
 */
export function sharedDeps(
  config: Config,
  modules: readonly ServiceModule[],
  log: Logger,
  clock: Clock = systemClock,
  metrics: Metrics = noMetrics,
) {
  let source: KeySource | undefined;
  const instances = new Map<string, ServiceInstance>();
  const keys: KeySource = { key: (realm, kid) => (source ??= remoteJwksKeySource(config.AUTH_ISSUER_URL)).key(realm, kid) };
  const toleranceMs = config.TOKEN_CLOCK_SKEW_SECONDS * 1000;
  const revocations = createRevocationList({ clock, toleranceMs });
  let following: { follower: RevocationFollower; close(): Promise<void> } | undefined;
  const auditStore = lateAuditStore();
  const deps: SharedDeps = {
    // loadConfig validated every registered service's settings into the same object.
    config: config,
    clock,
    log,
    keys,
    verifier: createTokenVerifier({
      issuerBase: issuerBaseFor(config.AUTH_ISSUER_URL),
      keys,
      clock,
      clockToleranceSec: config.TOKEN_CLOCK_SKEW_SECONDS,
      revocations: { revoked: revocations.revoked, loading: () => following !== undefined && !following.follower.loaded() },
    }),
    revocations,
    revoked: () => following?.follower.refresh() ?? Promise.resolve(),
    audiences: [...new Set(modules.map(audienceOf))],
    peer: <I extends ServiceInstance>(name: string) => instances.get(name) as I | undefined,
    fairPool: machinePools(),
    metrics,
    // Its store is opened by `connect` (bin/audit.ts): the data directory's audit.db, or PostgreSQL.
    audit: auditTrail({ store: auditStore.proxy, log, clock, newId: randomUUID }),
  };
  let redis: OpenedRedis | undefined;
  // Read on each scrape: the pool's connections by state, and whether Redis is connected.
  metrics.gauge({
    name: 'platform_db_pool_connections',
    help: 'PostgreSQL connections of the pool, by state (idle, busy, waiting: queries queued for one)',
    labels: ['state'],
    collect(g) {
      const pool = deps.postgres;
      if (!pool) return;
      g.set({ state: 'idle' }, pool.idleCount);
      g.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
      g.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  if (config.REDIS_URL)
    metrics.gauge({
      name: 'platform_redis_up',
      help: 'Whether the connection to REDIS_URL is up (1) or not (0)',
      aggregate: 'min',
      collect(g) {
        if (redis) g.set({}, redis.ready() ? 1 : 0);
      },
    });
  return {
    deps,
    /**
     * Connects what DATABASE_URL and REDIS_URL name (Redis only for a serving process: the CLI never
     * needs it) and runs the PostgreSQL migrations of `served`; start-up fails with a message
     * naming what could not be reached.
     */
    async connect(served: readonly ServiceModule[], opts: { admin?: boolean }): Promise<void> {
      // Only for services that keep something there (the gateway and the chat proxy keep nothing).
      if (config.DATABASE_URL && !deps.postgres && served.some((m) => m.migrations?.length)) {
        const { openPool, migrateAt } = postgres();
        deps.postgres = openPool(config.DATABASE_URL, {
          max: config.DATABASE_POOL_SIZE,
          onIdleError: (err) => log.warn({ err: err.message }, 'postgres: a pooled connection failed; the next query opens a new one'),
        });
        for (const m of served) if (m.migrations?.length) await migrateAt(config.DATABASE_URL, deps.postgres, m.name, m.migrations);
      }
      if (!auditStore.opened()) auditStore.open(await openAuditStore(config, deps.postgres));
      if (config.REDIS_URL && !opts.admin && !redis) {
        redis = redisClient().openRedis(config.REDIS_URL, {
          commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
          onError: (err) => log.warn({ err: err.message }, 'redis: the connection failed; reconnecting'),
        });
        deps.redis = redis.client;
        await redis.ping();
      }
    },
    /**
     * How the first-start bootstrap runs (bin/bootstrap.ts): on PostgreSQL the stores are shared by
     * every replica, and bootstraps of one database take turns under an advisory lock.
     */
    bootstrapScope(): BootstrapScope {
      const url = config.DATABASE_URL;
      if (!url || !deps.postgres) return { shared: false, exclusive: (fn) => fn() };
      return { shared: true, exclusive: (fn) => postgres().withAdvisoryLock(url, BOOTSTRAP_LOCK, fn) };
    },
    /** Whether PostgreSQL and Redis, where configured, answer now (readiness). */
    async reachable(): Promise<{ postgres?: boolean; redis?: boolean }> {
      const out: { postgres?: boolean; redis?: boolean } = {};
      if (deps.postgres)
        out.postgres = await deps.postgres.query('SELECT 1').then(
          () => true,
          () => false,
        );
      if (redis) out.redis = redis.ready();
      return out;
    },
    /**
     * Loads the revoked-sessions list and follows it in the background (bin/revocations.ts): a
     * process serving services calls it after `open`, before it listens. A gateway alone follows
     * none: the subgraphs it reaches verify their callers themselves.
     */
    async followRevocations(opened: readonly Opened[]): Promise<void> {
      if (opened.length === 0) return;
      following ??= await followRevocationFeed(deps, revocations, modules, opened, log);
    },
    /** Whether the revoked-sessions list is loaded (readiness), when this process follows it. */
    revocationsLoaded: () => following?.follower.loaded(),
    /** Closes the connections `connect` opened (after the services). */
    async close(): Promise<void> {
      await following?.close();
      following = undefined;
      const pool = deps.postgres;
      deps.postgres = undefined;
      deps.redis = undefined;
      await auditStore.close();
      await pool?.end().catch(() => undefined);
      await redis?.close();
      redis = undefined;
    },
    /** Opens `modules` in order, each after those it uses; on a failure closes those already open. */
    async open(served: readonly ServiceModule[], opts: { admin?: boolean } = {}): Promise<Opened[]> {
      const opened: Opened[] = [];
      try {
        await this.connect(served, opts);
        for (const module of usesFirst(served)) {
          const instance = await module.open(deps, opts);
          instances.set(module.name, instance);
          opened.push({ module, instance });
          source ??= instance.keySource;
        }
        // Routes, subgraphs and listings keep the registry's order.
        return [...opened].sort((x, y) => served.indexOf(x.module) - served.indexOf(y.module));
      } catch (err) {
        await closeAll(opened);
        await this.close();
        throw err;
      }
    },
  };
}

/** In a cluster worker, pools whose turns the primary hands out; else this process's own. */
function machinePools(): (name: string, opts: FairPoolOptions) => FairPool {
  if (cluster.isWorker && process.send) return workerPools(process as unknown as Channel);
  const pools = new Map<string, FairPool>();
  return (name, opts) => pools.get(name) ?? pools.set(name, createFairPool(opts)).get(name)!;
}

/** `served` in registry order, except that a service comes after the served services it uses. */
export function usesFirst(served: readonly ServiceModule[]): ServiceModule[] {
  const out: ServiceModule[] = [];
  const visit = (m: ServiceModule, path: string[]) => {
    if (out.includes(m)) return;
    if (path.includes(m.name)) throw new Error(`services use each other in a cycle: ${[...path, m.name].join(' -> ')}`);
    for (const name of m.uses ?? []) {
      const used = served.find((s) => s.name === name);
      if (used) visit(used, [...path, m.name]);
    }
    out.push(m);
  };
  served.forEach((m) => visit(m, []));
  return out;
}

export async function closeAll(opened: readonly Opened[]): Promise<void> {
  for (const { instance } of [...opened].reverse()) await instance.close();
}
