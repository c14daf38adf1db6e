/**
 * The plain `@apollo/gateway` peer of `npm run bench:graphql`, set up as Apollo's documentation
 * sets up a gateway over a supergraph: ApolloGateway with the supergraph SDL (subgraph URLs in it),
 * RemoteGraphQLDataSource forwarding the caller's credentials (`willSendRequest`), Apollo Server's
 * startStandaloneServer. Run as its own process: `node graphql-apollo-peer.js <supergraph file> <port>`.
 */
import { readFileSync } from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';

interface Context {
  authorization?: string;
  apiKey?: string;
}

async function main(file: string, port: number) {
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(file, 'utf8'),
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<Context>({
        url,
        willSendRequest({ request, context }) {
          if (context.authorization) request.http?.headers.set('authorization', context.authorization);
          if (context.apiKey) request.http?.headers.set('api-key', context.apiKey);
        },
      }),
  });
  const server = new ApolloServer<Context>({ gateway });
  const { url } = await startStandaloneServer(server, {
    listen: { port, host: '127.0.0.1' },
    context: async ({ req }) => ({ authorization: req.headers.authorization, apiKey: req.headers['api-key'] as string | undefined }),
  });
  process.stdout.write(`apollo gateway peer at ${url}\n`);
  process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
}

void main(process.argv[2], Number(process.argv[3]));
