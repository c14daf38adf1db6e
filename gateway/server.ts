import { ApolloGateway, LocalGraphQLDataSource, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import express, { Router, type ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { contextFrom, FORWARDED_HEADERS, type GraphContext } from '../subgraphs/context';
import { formatGraphQLError } from '../subgraphs/graphql-errors';
import type { Subgraph } from '../subgraphs';

/** Where the gateway finds one subgraph: its schema in this process, or a URL. */
export type SubgraphTarget = { schema: Subgraph['schema'] } | { url: string };

export interface GatewayOptions {
  supergraphSdl: string;
  targets: Record<string, SubgraphTarget>;
  log: Logger;
  bodyLimitBytes?: number;
}

export interface Gateway {
  /** Serves POST/GET /graphql (Apollo Sandbox for browsers) and GET /graphiql (offline). */
  router: Router;
  stop(): Promise<void>;
}

/** Passes the caller's credentials on to a remote subgraph. */
class ForwardingDataSource extends RemoteGraphQLDataSource<GraphContext> {
  override willSendRequest({ request, context }: Parameters<NonNullable<RemoteGraphQLDataSource<GraphContext>['willSendRequest']>>[0]) {
    for (const name of FORWARDED_HEADERS) {
      const value = context.headers?.[name];
      if (value) request.http?.headers.set(name, value);
    }
    // The subgraph believes this only from peers its TRUST_PROXY names (loopback by default).
    if (context.clientAddress) request.http?.headers.set('x-forwarded-for', context.clientAddress);
  }
}

export async function createGateway(opts: GatewayOptions): Promise<Gateway> {
  // @apollo/gateway otherwise sends usage metrics to Apollo and, to label them, probes cloud
  // metadata addresses (169.254.169.254): a self-hosted platform must not phone home.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const gateway = new ApolloGateway({
    supergraphSdl: opts.supergraphSdl,
    logger: gatewayLogger(opts.log),
    buildService: ({ name, url }) => {
      const target = opts.targets[name];
      if (target && 'schema' in target) return new LocalGraphQLDataSource(target.schema);
      return new ForwardingDataSource({ url: target?.url ?? url });
    },
  });
  const server = new ApolloServer<GraphContext>({
    gateway,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    logger: gatewayLogger(opts.log),
    plugins: [ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false })],
  });
  await server.start();
  const router = Router();
  router.use(
    '/graphql',
    express.json({ limit: opts.bodyLimitBytes ?? 1_048_576 }),
    expressMiddleware(server, { context: async ({ req }) => contextFrom(req) }),
  );
  router.use('/graphql', graphqlBodyErrors);
  return { router, stop: () => server.stop() };
}

/** An unreadable body (malformed JSON, too large) answered the GraphQL way, `{"errors":[...]}`. */
const graphqlBodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const status = (err as { status?: unknown })?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return next(err);
  const tooLarge = status === 413;
  res.status(status).json({
    errors: [{
      message: tooLarge ? 'Request body too large' : 'Malformed request body: send JSON with a "query" string',
      extensions: { code: tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' },
    }],
  });
};

function gatewayLogger(log: Logger) {
  return {
    debug: (m: unknown) => log.debug(String(m)),
    info: (m: unknown) => log.debug(String(m)),
    warn: (m: unknown) => log.warn(String(m)),
    error: (m: unknown) => log.error(String(m)),
  };
}
