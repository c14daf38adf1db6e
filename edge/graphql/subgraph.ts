import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { withErrorCodes } from './errors';

export interface Subgraph {
  name: string;
  typeDefs: DocumentNode;
  schema: GraphQLSchema;
}

/** One executable subgraph schema from a service's SDL and resolvers; every resolver error leaves coded. */
export function buildSubgraph(name: string, sdl: string, resolvers: Record<string, unknown>, log: Logger): Subgraph {
  const typeDefs = parse(sdl);
  return { name, typeDefs, schema: buildSubgraphSchema({ typeDefs, resolvers: withErrorCodes(resolvers as Record<string, Record<string, unknown>>, log) as GraphQLResolverMap<unknown> }) };
}
