import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import { describeError, type RecentErrors } from '../../core/shared/telemetry/recent-errors';
import type { GraphContext } from './context';
import { formatGraphQLError } from './errors';

/** The codes of errors that are the server's (or an upstream's) fault: a 5xx over HTTP. */
const SERVER_CODES = new Set(['INTERNAL_SERVER_ERROR', 'UPSTREAM_ERROR', 'SERVICE_UNAVAILABLE']);

/**
 * Records the server-side errors of each operation among the process's recent errors, as its
 * client is answered (formatGraphQLError decides the code): `service` is the subgraph an error
 * names (`extensions.serviceName`), else `service` (the gateway: `graph`; a subgraph served alone:
 * its name). The caller's mistakes (bad input, refusals) are not recorded.
 */
/** Records the server-side errors among `found` (the caller's mistakes left out), as recentErrorsPlugin does. */
export function recordServerErrors(
  errors: RecentErrors,
  service: string,
  found: readonly GraphQLError[],
  at: { type?: string; operationName?: string | null; requestId?: string },
): void {
  for (const error of found) {
    const shown = formatGraphQLError(error.toJSON(), error);
    const code = shown.extensions?.code;
    if (typeof code !== 'string' || !SERVER_CODES.has(code)) continue;
    // Down to what was thrown: a resolver's error is wrapped once where it was masked (toGraphQLError), once where it was located.
    let original = unwrapResolverError(error);
    while (original instanceof GraphQLError && original.originalError) original = original.originalError;
    const named = error.extensions.serviceName;
    errors.record({
      service: typeof named === 'string' ? named : service,
      where: `${at.type ?? 'operation'} ${at.operationName ?? 'anonymous'}${error.path ? ` (${error.path.join('.')})` : ''}`,
      code,
      // What was masked from the client is what an operator needs (describeError keeps it safe).
      message: original instanceof Error && !(original instanceof GraphQLError) ? describeError(original) : shown.message,
      requestId: at.requestId,
    });
  }
}

export function recentErrorsPlugin(errors: RecentErrors, service: string): ApolloServerPlugin<GraphContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors: found, contextValue, operation, operationName }) {
          recordServerErrors(errors, service, found, { type: operation?.operation, operationName, requestId: contextValue.requestId });
        },
      };
    },
  };
}
