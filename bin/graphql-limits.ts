import type { Config } from '../core/shared/config';
import type { GraphqlLimits } from '../edge/graphql/limits';

/** The GraphQL operation bounds a deployment configured (GRAPHQL_MAX_*, BODY_LIMIT_BYTES for a document's text). */
export const graphqlLimitsOf = (config: Config): GraphqlLimits => ({
  maxDocumentChars: config.BODY_LIMIT_BYTES,
  maxTokens: config.GRAPHQL_MAX_TOKENS,
  maxDepth: config.GRAPHQL_MAX_DEPTH,
  maxAliases: config.GRAPHQL_MAX_ALIASES,
  maxCost: config.GRAPHQL_MAX_COST,
  maxMutations: config.GRAPHQL_MAX_MUTATIONS,
  maxVariableValues: config.GRAPHQL_MAX_VARIABLE_VALUES,
  maxDefers: config.GRAPHQL_MAX_DEFERS,
});
