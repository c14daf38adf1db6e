import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { withErrorCodes } from './errors';

/** The resolvers buildSubgraphSchema takes, read off its public signature (the package exports no name for them). */
type SubgraphResolvers = NonNullable<Extract<Parameters<typeof buildSubgraphSchema>[0], { typeDefs: unknown }>['resolvers']>;

export interface Subgraph {
  name: string;
  typeDefs: DocumentNode;
  schema: GraphQLSchema;
}

/** One executable subgraph schema from a service's SDL and resolvers; every resolver error leaves coded. */
export function buildSubgraph(name: string, sdl: string, resolvers: Record<string, unknown>, log: Logger): Subgraph {
  const typeDefs = parse(sdl);
  return {
    name,
    typeDefs,
    schema: buildSubgraphSchema({
      typeDefs,
      resolvers: withErrorCodes(resolvers as Record<string, Record<string, unknown>>, log) as SubgraphResolvers,
    }),
  };
}
