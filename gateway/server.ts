import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import type { Server } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
// Not in our package.json: @apollo/gateway's own dependency (the LRU it and Apollo Server cache with by default).
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { expressMiddleware } from '@as-integrations/express5';
import { Router } from 'express';
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { RevocationList } from '../core/shared/auth/revocations';
import { DEFAULT_GRAPHQL_MAX_BODY_BYTES } from '../core/shared/config';
import type { TokenVerifier } from '../core/shared/auth/verifier';
import type { Redis } from '../core/shared/redis';
import { noMetrics, type Metrics } from '../core/shared/telemetry/metrics';
import { jsonBody } from '../edge/http/json-body';
import { contextFrom, type GraphContext } from '../edge/graphql/context';
import { formatGraphQLError, graphqlHttpErrors } from '../edge/graphql/errors';
import { documentGuard, graphqlLimits, extraRules, type GraphqlLimits } from '../edge/graphql/limits';
import { isRefusal, operationPreparer } from '../edge/graphql/prepare';
import type { Subgraph } from '../edge/graphql/subgraph';
import { introspectionCache, introspectionPlugin } from '../edge/graphql/introspection';
import { recentErrorsPlugin, recordServerErrors } from '../edge/graphql/recent-errors';
import type { RecentErrors } from '../core/shared/telemetry/recent-errors';
import { subscriptionUntilRevoked } from '../edge/graphql/revoked-streams';
import { REFUSE_NOTICE, type TrustedDocuments } from './trusted/enforce';
import { trustedDocumentsMiddleware, trustedPayload } from './trusted/middleware';
import { cachedIntrospection } from '../edge/graphql/introspection-http';
import { serveWebSocket, type SocketEdge, type SocketGraph, type WebSocketEndpoint } from '../edge/graphql/ws';
import { routeMatched } from '../edge/http/telemetry';
import { cacheControlPlugin, mergedVary } from './cache-control';
import { apolloPlanner, type ApolloPlanner } from './apollo-planner';
import { fastPath } from './fast-path';
import { subgraphFetches } from './fetch-telemetry';
import { sandboxLandingPage } from './landing-page';
import { InProcessDataSource } from './local-source';
import { operationTelemetry, type Transport } from './operation-telemetry';
import { persistedQueries } from './apq';
import { redisPersistedQueries, sqlitePersistedQueries } from './persisted-queries';
import { RemoteDataSource, subgraphAgent } from './remote-source';
import { responseStore, type ResponseCacheOptions } from './response-cache';
import { streamingTransports } from './streaming';
import { deferredOperations, type DeferredOutcome, type DeferredRequest } from './defer/deferred';
import type { Payload } from './defer/payloads';
import { deferOverHttp } from './defer/http';
import type { StreamHub } from './stream-hub/hub';
import { subgraphStream } from './subgraph-stream';
import { federatedSubscriptions } from './subscriptions';

/** Where the gateway finds one subgraph: its schema in this process, or a URL. */
export type SubgraphTarget = { schema: Subgraph['schema'] } | { url: string };

export interface GatewayOptions {
  supergraphSdl: string;
  targets: Record<string, SubgraphTarget>;
  log: Logger;
  /** Largest JSON body of an HTTP request to /graphql (GRAPHQL_MAX_BODY_BYTES, 16 MiB by default: an upload in base64). */
  bodyLimitBytes?: number;
  /** Largest graphql-ws message (BODY_LIMIT_BYTES, 1 MiB by default): no upload comes that way. */
  messageLimitBytes?: number;
  /** Bounds on each operation, over DEFAULT_GRAPHQL_LIMITS. */
  limits?: Partial<GraphqlLimits>;
  /** Where the offline GraphiQL is served, for the landing page's fallback link (`/graphiql`). */
  graphiqlPath?: string;
  /** Answers introspection (`__schema`, `__type`); default true (`GRAPHQL_INTROSPECTION`). */
  introspection?: boolean;
  /** Serves Apollo Sandbox to a browser's GET /graphql; default true (`GRAPHQL_LANDING_PAGE`). */
  landingPage?: boolean;
  /** Memory for cached query plans, in MiB, least recently used evicted (`GRAPHQL_QUERY_PLAN_CACHE_MB`, 30): Apollo's, and the fast path's own. */
  queryPlanCacheMiB?: number;
  /** Room for automatic persisted queries, in bytes (`GRAPHQL_APQ_CACHE_MB`, 10 MiB). */
  persistedQueryCacheBytes?: number;
  /** A SQLite file keeping them for every worker (gateway.db; the oldest out first); in this process's memory when absent (least recently used out first). */
  persistedQueryFile?: string;
  /** Redis (REDIS_URL), keeping them for every replica on any host; preferred to the file when given. */
  persistedQueryRedis?: { client: Redis; prefix: string };
  /** Public cacheable answers kept for their maxAge (GRAPHQL_RESPONSE_CACHE, docs/graphql-caching.md); no response cache when absent. */
  responseCache?: ResponseCacheOptions;
  /** How long a remote subgraph may take to answer (default 120 s); past it the request is aborted. */
  subgraphTimeoutMs?: number;
  /** A WebSocket that sends no connection_init within this is closed (default 3000 ms). */
  connectionInitTimeoutMs?: number;
  /** Open graphql-ws sockets per client address in this process (GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS, default 50). */
  maxSocketsPerAddress?: number;
  /** Between keep-alives of an open subscription (STREAM_HEARTBEAT_MS): WebSocket pings, multipart heartbeats, SSE comments (default 10000 ms). */
  keepAliveMs?: number;
  /**
   * Verifies bearer tokens for graphql-sse's single connection mode (a stream belongs to the caller
   * who reserved it; without one, that mode is not served, distinct connections still are) and at
   * graphql-ws's connection_init (a present but invalid token closes the socket with 4403).
   */
  verifier?: TokenVerifier;
  /** Where operations, subgraph fetches and open subscriptions are counted and timed (nothing when absent). */
  metrics?: Metrics;
  /**
   * Where graphql-sse's single connection streams are known to every process serving the graph
   * (the cluster's primary, Redis); this process alone when absent. Closed by its creator.
   */
  streamHub?: StreamHub;
  /** Subscriptions end when their caller's session is ended, on every transport (edge/graphql/revoked-streams.ts). */
  revocations?: Pick<RevocationList, 'watch'>;
  /** Where operations' server-side errors are kept for the overview (edge/graphql/recent-errors.ts); none when absent. */
  recentErrors?: RecentErrors;
  /** The supergraph's planner when the caller built it already (bin/start.ts shares it with the trusted documents); built from supergraphSdl otherwise. */
  planner?: ApolloPlanner;
  /** Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS, gateway/trusted/): ids resolved to listed texts, unlisted operations logged or refused. */
  trusted?: TrustedDocuments;
  /** Plain queries answered by the fast path (fast-path.ts) instead of Apollo Server's pipeline; default true (tests compare both). */
  fastPath?: boolean;
}

export interface Gateway {
  /** Serves POST/GET /graphql (Apollo Sandbox for browsers, pointing to GraphiQL when offline). */
  router: Router;
  /** Serves the graph's operations, subscriptions included, over graphql-ws at /graphql of `server`; close it before the server. */
  webSocket?: (server: Server, edge?: SocketEdge) => WebSocketEndpoint;
  stop(): Promise<void>;
}

export async function createGateway(opts: GatewayOptions): Promise<Gateway> {
  // @apollo/gateway otherwise sends usage metrics to Apollo and, to label them, probes cloud
  // metadata addresses (169.254.169.254): a self-hosted platform must not phone home.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const limits = graphqlLimits(opts.limits);
  const metrics = opts.metrics ?? noMetrics;
  const operations = operationTelemetry(metrics);
  const fetches = subgraphFetches(metrics);
  // One data source per subgraph, shared by the gateway's queries and the subscriptions' entity fetches.
  const timeoutMs = opts.subgraphTimeoutMs ?? 120_000;
  const agent = subgraphAgent(timeoutMs);
  const sourceOf = (name: string, target: SubgraphTarget): GraphQLDataSource =>
    'schema' in target
      ? new InProcessDataSource(target.schema, undefined, fetches.of(name, false))
      : new RemoteDataSource({ name, url: target.url, log: opts.log, dispatcher: agent, timed: fetches.of(name, true) });
  const dataSources = Object.fromEntries(Object.entries(opts.targets).map(([name, target]) => [name, sourceOf(name, target)]));
  const gateway = new ApolloGateway({
    supergraphSdl: opts.supergraphSdl,
    logger: gatewayLogger(opts.log),
    // Plans are cached by operation; the cache is an LRU bounded by their approximate size.
    experimental_approximateQueryPlanStoreMiB: opts.queryPlanCacheMiB ?? 30,
    buildService: ({ name, url }) => dataSources[name] ?? sourceOf(name, { url: url! }),
  });
  // @apollo/gateway executes no subscriptions: the gateway runs them itself (gateway/subscriptions.ts),
  // with the planner the fast path plans plain queries with (fast-path.ts).
  const planner = opts.planner ?? apolloPlanner(opts.supergraphSdl, opts.log);
  const federated = federatedSubscriptions({
    supergraphSdl: opts.supergraphSdl,
    planner,
    dataSources,
    log: opts.log,
    stream: subgraphStream({ targets: opts.targets, log: opts.log, ackTimeoutMs: timeoutMs, fetches }),
  });
  const servesSubscriptions = Boolean(federated.schema.getSubscriptionType());
  // @apollo/gateway executes no @defer either: the gateway runs those operations itself (gateway/defer/).
  const recent = opts.recentErrors;
  const deferred = deferredOperations({
    planner: federated.planner,
    dataSources,
    log: opts.log,
    observe: recent
      ? (errors, { type, operationName }, context) =>
          recordServerErrors(recent, 'graph', errors, { type, operationName, requestId: context.requestId })
      : undefined,
  });
  const runDeferred = (request: DeferredRequest) =>
    operations.deferred<Payload | ExecutionResult>(
      { document: request.operation.document, operationName: request.operation.operationName, contextValue: request.context },
      () => deferred.execute(request),
    ) as Promise<DeferredOutcome>;
  const schemaAnswers = introspectionCache();
  const apqBytes = opts.persistedQueryCacheBytes ?? 10 * 2 ** 20;
  const persisted = opts.persistedQueryRedis
    ? undefined
    : opts.persistedQueryFile
      ? sqlitePersistedQueries(opts.persistedQueryFile, { maxBytes: apqBytes, log: opts.log })
      : undefined;
  const sharedPersisted = opts.persistedQueryRedis
    ? redisPersistedQueries(opts.persistedQueryRedis.client, { log: opts.log, prefix: opts.persistedQueryRedis.prefix })
    : persisted;
  // Resolved before every HTTP transport (apq.ts); Apollo Server's own handling sees only what that leaves it.
  const apqStore = sharedPersisted ?? new InMemoryLRUCache<string>({ maxSize: apqBytes });
  // A registration is kept once it parses and validates as the other transports' operations do (prepare.ts).
  const prepared = operationPreparer(federated.schema, limits, opts.introspection !== false);
  const apq = persistedQueries(apqStore, (query) => !isRefusal(prepared({ query })));
  const responses = opts.responseCache && responseStore(opts.responseCache, opts.log);
  const formatError = (formatted: GraphQLFormattedError, error: unknown) => formatGraphQLError(formatted, error, opts.log);
  // The plugins whose request hooks the fast path runs too; Apollo Server runs them with the landing page's.
  const requestPlugins: ApolloServerPlugin<GraphContext>[] = [
    operations.plugin,
    introspectionPlugin(schemaAnswers, federated.schema),
    // Cache-Control from the supergraph's @cacheControl hints, and the response cache (cache-control.ts).
    cacheControlPlugin({ supergraphSdl: opts.supergraphSdl, store: responses, now: opts.responseCache?.now }),
    ...(opts.recentErrors ? [recentErrorsPlugin(opts.recentErrors, 'graph')] : []),
  ];
  const server = new ApolloServer<GraphContext>({
    // The platform stops the process itself (SIGTERM drains, bin/serve.ts): Apollo's own handler would stop serving at once.
    stopOnTerminationSignals: false,
    gateway,
    introspection: opts.introspection ?? true,
    includeStacktraceInErrorResponses: false,
    formatError,
    logger: gatewayLogger(opts.log),
    validationRules: extraRules,
    // Automatic persisted queries (on by Apollo's default) in their own bounded store of query texts.
    persistedQueries: { cache: apqStore },
    // Introspection is answered by graphql-js on the API schema, cached, before the query planner.
    // Each operation counted, timed and in its span (operation-telemetry.ts).
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      ...requestPlugins,
      opts.landingPage === false
        ? ApolloServerPluginLandingPageDisabled()
        : sandboxLandingPage({
            graphiqlPath: opts.graphiqlPath ?? '/graphiql',
            notice: opts.trusted?.mode === 'refuse' ? REFUSE_NOTICE : undefined,
          }),
    ],
  });
  await server.start();
  /**
   * The graph for transports outside Apollo Server: queries and mutations through it, subscriptions
   * federated here (each counted open on its transport while it lasts).
   */
  const graphOver = (transport: Transport): Required<SocketGraph> => ({
    schema: federated.schema,
    execute: async ({ document, operationName, variableValues, contextValue }) => {
      const variables = variableValues ?? {};
      const parts = deferred.prepare(document, operationName, variables);
      if (parts) return runDeferred({ operation: parts, variables, context: contextValue, incremental: true });
      const response = await server.executeOperation(
        { query: document, operationName: operationName ?? undefined, variables: variableValues ?? undefined },
        { contextValue },
      );
      return response.body.kind === 'single'
        ? response.body.singleResult
        : { errors: [{ message: 'Incremental delivery is not served here', extensions: { code: 'BAD_REQUEST' } }] };
    },
    subscribe: ({ document, operationName, variableValues, contextValue }) =>
      operations.subscribe(transport, { document, operationName, contextValue }, async () =>
        subscriptionUntilRevoked(
          await federated.subscribe({ document, operationName, variables: variableValues, context: contextValue }),
          contextValue,
          opts.revocations,
        ),
      ),
  });
  const streaming = servesSubscriptions
    ? streamingTransports({
        graphs: { sse: graphOver('sse'), multipart: graphOver('multipart') },
        limits,
        log: opts.log,
        introspection: opts.introspection,
        heartbeatMs: opts.keepAliveMs,
        verifier: opts.verifier,
        hub: opts.streamHub,
      })
    : undefined;
  const router = Router();
  router.use(
    '/graphql',
    // The route's label in the HTTP metrics (inside this mount, express's req.path is `/`).
    (_req, res, next) => {
      routeMatched(res, '/graphql');
      next();
    },
    jsonBody({ limit: opts.bodyLimitBytes ?? DEFAULT_GRAPHQL_MAX_BODY_BYTES }),
    ...(opts.trusted ? [trustedDocumentsMiddleware(opts.trusted)] : []),
    apq.resolve,
    documentGuard(limits, () => servesSubscriptions),
    apq.register,
    cachedIntrospection(schemaAnswers),
    ...(streaming ? [streaming.handler] : []),
    deferOverHttp({
      schema: federated.schema,
      limits,
      log: opts.log,
      introspection: opts.introspection,
      prepare: deferred.prepare,
      execute: runDeferred,
    }),
    // Last before Apollo Server, so that every middleware above applies to what it answers.
    ...(opts.fastPath === false
      ? []
      : [
          fastPath({
            planner,
            dataSources,
            plugins: requestPlugins,
            formatError,
            log: opts.log,
            maxBytes: (opts.queryPlanCacheMiB ?? 30) * 2 ** 20,
          }),
        ]),
    mergedVary,
    expressMiddleware(server, { context: async ({ req }) => contextFrom(req) }),
  );
  router.use('/graphql', graphqlHttpErrors);
  const webSocket = servesSubscriptions
    ? (http: Server, edge?: SocketEdge) =>
        serveWebSocket(
          http,
          graphOver('ws'),
          opts.log,
          {
            limits,
            path: '/graphql',
            maxPayloadBytes: opts.messageLimitBytes,
            connectionInitTimeoutMs: opts.connectionInitTimeoutMs,
            keepAliveMs: opts.keepAliveMs,
            introspection: opts.introspection,
            verifier: opts.verifier,
            maxSocketsPerAddress: opts.maxSocketsPerAddress,
            trusted: opts.trusted && trustedPayload(opts.trusted),
          },
          edge,
        )
    : undefined;
  return {
    router,
    webSocket,
    async stop() {
      streaming?.close();
      await server.stop();
      await agent.close();
      persisted?.close();
      responses?.close();
    },
  };
}

function gatewayLogger(log: Logger) {
  return {
    debug: (m: unknown) => log.debug(String(m)),
    info: (m: unknown) => log.debug(String(m)),
    warn: (m: unknown) => log.warn(String(m)),
    error: (m: unknown) => log.error(String(m)),
  };
}
