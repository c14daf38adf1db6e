import { createServer, type Server } from 'node:http';
import { graphqlLimitsOf } from './graphql-limits';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Clock } from '../core/shared/clock';
import { ConfigError, subgraphUrlVar, type Config } from '../core/shared/config';
import { apolloPlanner } from '../gateway/apollo-planner';
import { createGateway, type SubgraphTarget } from '../gateway/server';
import { graphiqlRouter } from '../gateway/graphiql';
import { consoleRouter } from '../gateway/console';
import { graphSources, PLATFORM_SUBGRAPH, supergraphOf } from '../gateway/supergraph';
import { createRestApp } from '../rest/shared/app';
import { subgraphRouter, type SubgraphRouter } from '../subgraphs/shared/server';
import { SERVICES } from '../services/registry';
import { adminFace, restFace, subgraphFace } from '../services/shared/faces';
import type { ServiceInstance, ServiceModule } from '../services/shared/module';
import { runBootstrap, type BootstrapResult } from './bootstrap';
import { AUDIT_PRUNE_EVERY_MS, scheduleAuditRetention } from './audit-retention';
import { secureDataDir } from './data-dir';
import { closeAll, sharedDeps, type Opened } from './deps';
import { acceptH2c } from '../rest/shared/h2c';
import { upgradeAddressOf } from '../edge/http/client-address';
import { requestTracker, type RequestTracker } from '../edge/http/drain';
import { readinessOf } from './readiness';
import { webOriginsOf } from './web-origins';
import { streamHubFor } from './stream-hub';
import { noMetrics, type Metrics } from '../core/shared/telemetry/metrics';
import { prometheusMetrics, type PrometheusMetrics } from '../core/shared/telemetry/prometheus';
import { startTracing, tracingWanted } from './tracing';
import { describeError, recentErrors, type RecentErrors } from '../core/shared/telemetry/recent-errors';
import { openReplicaStore, startReplicaHeartbeats } from './heartbeat';
import { platformSubgraph, serviceProbes } from './overview';
import { servedTrustedDocuments } from './trusted-documents';
import { REFUSE_NOTICE } from '../gateway/trusted/enforce';

export interface StartOptions {
  /** `all` (default), one service's name (its REST paths and subgraph), or `gateway` (the graph alone). */
  role?: string;
  modules?: readonly ServiceModule[];
  log?: Logger;
  clock?: Clock;
  /** Run the first-start bootstrap (default: when serving everything). Workers leave it to their primary. */
  bootstrap?: boolean;
  /** Run the services' background jobs (default true; one worker of several runs them). */
  jobs?: boolean;
}

/** What the process serves on METRICS_PORT: a registry when metrics are on (METRICS_PORT > 0). */
export function metricsFor(config: Config): Metrics & Partial<Pick<PrometheusMetrics, 'registry'>> {
  return config.METRICS_PORT > 0 ? prometheusMetrics({ maxTenants: config.METRICS_MAX_TENANTS }) : noMetrics;
}

export interface RunningPlatform {
  url: string;
  port: number;
  server: Server;
  bootstrap?: BootstrapResult;
  /** The opened services by name (administration in tests and tools). */
  instances: Readonly<Record<string, ServiceInstance>>;
  /** Permission fixes made to the data directory at start. */
  tightened: string[];
  /** Its metrics (METRICS_PORT serves them; `registry` is absent when they are off). */
  metrics: Metrics & Partial<Pick<PrometheusMetrics, 'registry'>>;
  /**
   * Stops: new connections are refused at once, WebSocket subscriptions end with 1001 (going
   * away: clients reconnect elsewhere), requests in flight get `graceMs` to finish (0 by default;
   * SIGTERM gives SHUTDOWN_GRACE_SECONDS), then what is left is cut and the services close.
   */
  close(graceMs?: number): Promise<void>;
}

/** The services a role serves in full. */
export function servedBy(role: string, modules: readonly ServiceModule[]): readonly ServiceModule[] {
  if (role === 'all') return modules;
  if (role === 'gateway') return [];
  const one = modules.find((m) => m.name === role);
  if (!one) throw new ConfigError(`unknown service '${role}': one of ${[...modules.map((m) => m.name), 'gateway'].join(', ')}`);
  return [one];
}

/** Starts `role` on HOST:PORT as configured; the code path of `npm start` and `platform serve`. */
export async function startPlatform(config: Config, opts: StartOptions = {}): Promise<RunningPlatform> {
  const role = opts.role ?? 'all';
  const modules = opts.modules ?? SERVICES;
  const log = opts.log ?? pino({ level: config.LOG_LEVEL });
  const tracing = tracingWanted(config) ? startTracing(config, role, log) : undefined;
  const served = servedBy(role, modules);
  const tightened = secureDataDir(config.PLATFORM_DATA_DIR);
  const metrics = metricsFor(config);
  const platform = sharedDeps(config, modules, log, opts.clock, metrics);
  // This process's server-side failures, for the overview (published with its heartbeats).
  const errors = recentErrors({ clock: platform.deps.clock });
  const opened = await platform.open(served).catch(async (err: unknown) => {
    await tracing?.shutdown();
    throw err;
  });
  // Spans still buffered leave last, after the services have closed.
  const closers: (() => unknown)[] = [() => tracing?.shutdown(), () => platform.close(), () => closeAll(opened)];
  try {
    const bootstrap =
      (opts.bootstrap ?? role === 'all') ? await runBootstrap(config.PLATFORM_DATA_DIR, opened, platform.bootstrapScope()) : undefined;
    // Sessions ended before this process started must be refused from its first request.
    await platform.followRevocations(opened);
    if (opts.jobs !== false)
      closers.push(
        scheduleJobs(opened, log, errors),
        scheduleAuditRetention(platform.deps.audit, config.AUDIT_RETENTION_DAYS, platform.deps.clock, log, AUDIT_PRUNE_EVERY_MS, errors),
      );
    const servesGraph = !(served.length === 1 && role !== 'all');
    // Every serving process says it is there, every HEARTBEAT_SECONDS, with its recent errors (bin/heartbeat.ts).
    const replicas = openReplicaStore(config, platform.deps.postgres, log);
    closers.push(() => replicas.close());
    const heartbeats = await startReplicaHeartbeats({
      config,
      store: replicas.store,
      serves: [...served.map((m) => m.name), ...(servesGraph ? ['gateway'] : [])],
      errors,
      clock: platform.deps.clock,
      log,
    });
    closers.push(heartbeats.stop);
    let tracker: RequestTracker | undefined;
    const readiness = readinessOf(platform, opened, () => tracker?.draining() ?? false);

    const subgraphs = opened.flatMap(({ module, instance }) => subgraphFace(module, instance, platform.deps, log) ?? []);
    const graph = [];
    // The gateway, or a subgraph served alone with subscriptions, also takes graphql-ws clients on the same server.
    let webSocket: SubgraphRouter['webSocket'];
    let trusted: Awaited<ReturnType<typeof servedTrustedDocuments>> | undefined;
    const limits = graphqlLimitsOf(config);
    if (!servesGraph) {
      if (subgraphs[0]) {
        const one = await subgraphRouter(subgraphs[0], log, config.GRAPHQL_MAX_BODY_BYTES, {
          limits,
          messageLimitBytes: config.BODY_LIMIT_BYTES,
          introspection: config.GRAPHQL_INTROSPECTION,
          landingPage: config.GRAPHQL_LANDING_PAGE,
          connectionInitTimeoutMs: config.GRAPHQL_WS_INIT_TIMEOUT_MS,
          keepAliveMs: config.STREAM_HEARTBEAT_MS,
          verifier: platform.deps.verifier,
          maxSocketsPerAddress: config.GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS,
          revocations: platform.deps.revocations,
          recentErrors: errors,
        });
        closers.push(() => one.stop());
        webSocket = one.webSocket;
        graph.push({ path: '/', router: one.router });
      }
    } else {
      const targets: Record<string, SubgraphTarget> = Object.fromEntries(subgraphs.map((s) => [s.name, { schema: s.schema }]));
      for (const m of modules.filter((x) => x.subgraph)) {
        const url = config.subgraphUrls[m.name];
        if (url) targets[m.name] = { url };
        else if (!targets[m.name])
          throw new ConfigError(`${subgraphUrlVar(m.name)} is required to run the gateway without the ${m.name} service`);
      }
      // The graph's own subgraph, always here: what the platform knows about itself (bin/overview.ts).
      const probes = serviceProbes({ modules: modules.filter((m) => m.subgraph), opened, targets, readiness });
      targets[PLATFORM_SUBGRAPH] = {
        schema: platformSubgraph({
          probes,
          store: replicas.store,
          heartbeats,
          clock: platform.deps.clock,
          verifier: platform.deps.verifier,
          log,
        }).schema,
      };
      const streamHub = streamHubFor(config, platform.deps.redis, log);
      closers.push(() => streamHub.close());
      const supergraphSdl = supergraphOf(
        graphSources(modules.filter((m) => m.subgraph).map((m) => ({ name: m.name, sdl: m.subgraph!.sdl() }))),
      );
      const { deps } = platform;
      // One planner (the supergraph built once, about half a second): the gateway's, whose API schema the trusted documents check against.
      const planner = apolloPlanner(supergraphSdl, log);
      trusted = await servedTrustedDocuments({
        config,
        pool: deps.postgres,
        schema: () => planner.apiSchema,
        log,
        metrics,
        audit: deps.audit,
        clock: deps.clock,
      });
      closers.push(() => trusted?.close());
      const gateway = await createGateway({
        supergraphSdl,
        planner,
        targets,
        log,
        bodyLimitBytes: config.GRAPHQL_MAX_BODY_BYTES,
        messageLimitBytes: config.BODY_LIMIT_BYTES,
        limits,
        introspection: config.GRAPHQL_INTROSPECTION,
        landingPage: config.GRAPHQL_LANDING_PAGE,
        queryPlanCacheMiB: config.GRAPHQL_QUERY_PLAN_CACHE_MB,
        persistedQueryCacheBytes: config.GRAPHQL_APQ_CACHE_MB * 2 ** 20,
        persistedQueryFile: join(config.PLATFORM_DATA_DIR, 'gateway.db'),
        persistedQueryRedis: platform.deps.redis && { client: platform.deps.redis, prefix: `${config.REDIS_KEY_PREFIX}gateway:apq:` },
        responseCache: config.GRAPHQL_RESPONSE_CACHE
          ? {
              maxBytes: config.GRAPHQL_RESPONSE_CACHE_MB * 2 ** 20,
              file: join(config.PLATFORM_DATA_DIR, 'gateway.db'),
              redis: platform.deps.redis && { client: platform.deps.redis, prefix: `${config.REDIS_KEY_PREFIX}gateway:responses:` },
            }
          : undefined,
        subgraphTimeoutMs: config.GRAPHQL_SUBGRAPH_TIMEOUT_MS,
        connectionInitTimeoutMs: config.GRAPHQL_WS_INIT_TIMEOUT_MS,
        keepAliveMs: config.STREAM_HEARTBEAT_MS,
        maxSocketsPerAddress: config.GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS,
        verifier: platform.deps.verifier,
        metrics,
        streamHub,
        revocations: platform.deps.revocations,
        recentErrors: errors,
        trusted: trusted.policy,
      });
      closers.push(() => gateway.stop());
      webSocket = gateway.webSocket;
      graph.push({ path: '/', router: gateway.router });
      // The offline GraphiQL is a landing page too: off with it in production.
      if (config.GRAPHQL_LANDING_PAGE)
        graph.push({
          path: '/',
          router: graphiqlRouter('/graphql', {
            publicUrl: config.PUBLIC_URL,
            notice: config.GRAPHQL_TRUSTED_DOCUMENTS === 'refuse' ? REFUSE_NOTICE : undefined,
          }),
        });
      // The web console talks to the graph only: it is served wherever the graph is.
      graph.push({ path: '/', router: consoleRouter() });
    }

    const rest = opened.flatMap(({ module, instance }) => restFace(module, instance, platform.deps) ?? []);
    const admin = adminFace(opened, platform.deps, trusted ? [trusted.face] : []);
    if (admin) rest.push(admin);
    const app = createRestApp(rest, {
      readiness,
      log,
      verifier: platform.deps.verifier,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      corsOrigins: config.CORS_ORIGINS,
      webOrigins: webOriginsOf(modules, opened, platform.deps),
      trustProxy: config.TRUST_PROXY,
      extra: graph,
      publicUrl: config.PUBLIC_URL,
      metrics,
      tracing: !!tracing,
      heartbeatMs: config.STREAM_HEARTBEAT_MS,
      recentErrors: errors,
    });
    const server = createServer(app);
    const tracked = requestTracker(server);
    tracker = tracked;
    server.keepAliveTimeout = 65_000;
    if (rest.some((r) => r.http2Cleartext)) acceptH2c(server);
    // graphql-ws resolves a client's address as the HTTP routes do (TRUST_PROXY).
    const sockets = webSocket?.(server, { addressOf: upgradeAddressOf(app) });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => resolve());
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    return {
      url: `http://${host}:${port}`,
      port,
      server,
      bootstrap,
      tightened,
      metrics,
      instances: Object.fromEntries(opened.map((o) => [o.module.name, o.instance])),
      async close(graceMs = 0) {
        const drained = tracked.drain(graceMs);
        // Open WebSockets would hold server.close() until their clients left.
        await sockets?.close();
        if (!(await drained))
          log.warn({ requests: tracked.active(), graceMs }, 'stopping: requests still running after the grace period are cut');
        server.closeAllConnections();
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close();
    throw err;
  }
}

function scheduleJobs(opened: readonly Opened[], log: Logger, errors: RecentErrors): () => void {
  const timers = opened.flatMap(({ module, instance }) =>
    (module.jobs ?? []).map((job) => {
      const timer = setInterval(() => {
        Promise.resolve()
          .then(() => job.run(instance))
          .catch((err: unknown) => {
            log.error({ err, job: job.name, service: module.name }, 'background job failed');
            errors.record({ service: module.name, where: `job: ${job.name}`, code: 'job_failed', message: describeError(err) });
          });
      }, job.everyMs);
      timer.unref();
      return timer;
    }),
  );
  return () => timers.forEach(clearInterval);
}
