import { buildSubgraphSchema } from '@apollo/subgraph';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { TokenService } from '../core/token/service';
import { withErrorCodes } from './graphql-errors';
import { tokenResolvers } from './token';

export type SubgraphName = 'token';

/** The SDL folder, from the sources (tests) or from dist/ (the built command). */
export const schemaDir = (): string => {
  const candidates = [join(__dirname, '..', 'schema'), join(__dirname, '..', '..', 'schema')];
  const found = candidates.find((d) => existsSync(join(d, 'token.graphql')));
  if (!found) throw new Error(`schema/ not found near ${__dirname}`);
  return found;
};

export const subgraphSdl = (name: SubgraphName): string => readFileSync(join(schemaDir(), `${name}.graphql`), 'utf8');

export interface Subgraph {
  name: SubgraphName;
  typeDefs: DocumentNode;
  schema: GraphQLSchema;
}

export interface SubgraphServices {
  token?: TokenService;
}

/** One executable subgraph schema per service present. */
export function buildSubgraphs(services: SubgraphServices, log: Logger): Subgraph[] {
  const out: Subgraph[] = [];
  const make = (name: SubgraphName, resolvers: Record<string, any>) => {
    const typeDefs = parse(subgraphSdl(name));
    out.push({ name, typeDefs, schema: buildSubgraphSchema({ typeDefs, resolvers: withErrorCodes(resolvers, log) }) });
  };
  if (services.token) make('token', tokenResolvers(services.token));
  return out;
}
