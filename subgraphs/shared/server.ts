import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { expressMiddleware } from '@as-integrations/express5';
import { Router } from 'express';
import { DEFAULT_GRAPHQL_MAX_BODY_BYTES } from '../../core/shared/config';
import { jsonBody } from '../../edge/http/json-body';
import { contextFrom, type GraphContext } from '../../edge/graphql/context';
import { formatGraphQLError, graphqlHttpErrors } from '../../edge/graphql/errors';
import { introspectionCache, introspectionPlugin } from '../../edge/graphql/introspection';
import { recentErrorsPlugin } from '../../edge/graphql/recent-errors';
import type { RecentErrors } from '../../core/shared/telemetry/recent-errors';
import { cachedIntrospection } from '../../edge/graphql/introspection-http';
import { documentGuard, graphqlLimits, extraRules, type GraphqlLimits } from '../../edge/graphql/limits';
import type { Subgraph } from '../../edge/graphql/subgraph';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import { serveWebSocket, type SocketEdge, type WebSocketEndpoint, type WebSocketOptions } from '../../edge/graphql/ws';
import { routeMatched } from '../../edge/http/telemetry';

export interface SubgraphRouterOptions {
  /** Bounds on each operation, over DEFAULT_GRAPHQL_LIMITS. */
  limits?: Partial<GraphqlLimits>;
  /** Largest graphql-ws message (BODY_LIMIT_BYTES, 1 MiB by default): no upload comes that way. */
  messageLimitBytes?: number;
  /** A WebSocket that sends no connection_init within this is closed (default 3000 ms). */
  connectionInitTimeoutMs?: number;
  /** Between WebSocket pings (STREAM_HEARTBEAT_MS, default 10000 ms). */
  keepAliveMs?: number;
  /** Answers introspection (`__schema`, `__type`); default true (`GRAPHQL_INTROSPECTION`). */
  introspection?: boolean;
  /** Serves Apollo's landing page to a browser's GET /graphql; default true (`GRAPHQL_LANDING_PAGE`). */
  landingPage?: boolean;
  /** Verifies a bearer token presented at graphql-ws's connection_init (a present but invalid one: 4403). */
  verifier?: TokenVerifier;
  /** Open graphql-ws sockets per client address (GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS, default 50). */
  maxSocketsPerAddress?: number;
  /** Subscriptions over graphql-ws end when their caller's session is ended (edge/graphql/revoked-streams.ts). */
  revocations?: WebSocketOptions['revocations'];
  /** Where operations' server-side errors are kept for the overview (edge/graphql/recent-errors.ts); none when absent. */
  recentErrors?: RecentErrors;
}

export interface SubgraphRouter {
  router: Router;
  /**
   * For a schema with a Subscription type: serves its operations over graphql-ws at /graphql of
   * `server` (the one the router is mounted on). Close the endpoint before the server.
   */
  webSocket?: (server: Server, edge?: SocketEdge) => WebSocketEndpoint;
  stop(): Promise<void>;
}

/**
 * One subgraph served on its own at /graphql, for a gateway that reaches it over HTTP
 * (`platform serve <service>`). The gateway forwards credentials as headers. The subgraph bounds
 * operations itself: it may be reached without the gateway in front. A subgraph with subscriptions
 * also takes WebSocket clients there (graphql-ws), once `webSocket` is given the HTTP server.
 */
export async function subgraphRouter(
  subgraph: Subgraph,
  log: Logger,
  /** Largest JSON body of an HTTP request (GRAPHQL_MAX_BODY_BYTES: the gateway forwards uploads as they came). */
  bodyLimitBytes = DEFAULT_GRAPHQL_MAX_BODY_BYTES,
  opts: SubgraphRouterOptions = {},
): Promise<SubgraphRouter> {
  const limits = graphqlLimits(opts.limits);
  const servesSubscriptions = Boolean(subgraph.schema.getSubscriptionType());
  const schemaAnswers = introspectionCache();
  const server = new ApolloServer<GraphContext>({
    // The platform stops the process itself (SIGTERM drains, bin/serve.ts): Apollo's own handler would stop serving at once.
    stopOnTerminationSignals: false,
    schema: subgraph.schema,
    introspection: opts.introspection ?? true,
    includeStacktraceInErrorResponses: false,
    formatError: (formatted, error) => formatGraphQLError(formatted, error, log),
    logger: log,
    validationRules: extraRules,
    // Inline traces are for Apollo Studio, which a self-hosted platform does not report to.
    plugins: [
      ApolloServerPluginInlineTraceDisabled(),
      introspectionPlugin(schemaAnswers),
      ...(opts.recentErrors ? [recentErrorsPlugin(opts.recentErrors, subgraph.name)] : []),
      ...(opts.landingPage === false ? [ApolloServerPluginLandingPageDisabled()] : []),
    ],
  });
  await server.start();
  const router = Router();
  router.use(
    '/graphql',
    // The route's label in the HTTP metrics (inside this mount, express's req.path is `/`).
    (_req, res, next) => {
      routeMatched(res, '/graphql');
      next();
    },
    jsonBody({ limit: bodyLimitBytes }),
    documentGuard(limits, () => servesSubscriptions),
    cachedIntrospection(schemaAnswers),
    expressMiddleware(server, { context: async ({ req }) => contextFrom(req) }),
  );
  router.use('/graphql', graphqlHttpErrors);
  const webSocket = servesSubscriptions
    ? (http: Server, edge?: SocketEdge) =>
        serveWebSocket(
          http,
          subgraph,
          log,
          {
            limits,
            path: '/graphql',
            maxPayloadBytes: opts.messageLimitBytes,
            connectionInitTimeoutMs: opts.connectionInitTimeoutMs,
            keepAliveMs: opts.keepAliveMs,
            introspection: opts.introspection,
            introspectionCache: schemaAnswers,
            verifier: opts.verifier,
            maxSocketsPerAddress: opts.maxSocketsPerAddress,
            revocations: opts.revocations,
          },
          edge,
        )
    : undefined;
  return { router, webSocket, stop: () => server.stop() };
}
