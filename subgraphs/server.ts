import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import type { Logger } from 'pino';
import { expressMiddleware } from '@as-integrations/express5';
import express, { Router } from 'express';
import { contextFrom, type GraphContext } from './context';
import { formatGraphQLError } from './graphql-errors';
import type { Subgraph } from './index';

/**
 * One subgraph served on its own at /graphql, for a gateway that reaches it over HTTP
 * (`platform serve <service>`). The gateway forwards credentials as headers.
 */
export async function subgraphRouter(subgraph: Subgraph, log: Logger, bodyLimitBytes = 1_048_576): Promise<{ router: Router; stop(): Promise<void> }> {
  const server = new ApolloServer<GraphContext>({
    schema: subgraph.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    logger: log,
    // Inline traces are for Apollo Studio, which a self-hosted platform does not report to.
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  await server.start();
  const router = Router();
  router.use(
    '/graphql',
    express.json({ limit: bodyLimitBytes }),
    expressMiddleware(server, { context: async ({ req }) => contextFrom(req) }),
  );
  return { router, stop: () => server.stop() };
}
