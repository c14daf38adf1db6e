import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Caller } from '../../core/shared/auth/caller';
import { endWhenRevoked, sessionOfCaller } from '../../core/shared/auth/end-when-revoked';
import type { RevocationList } from '../../core/shared/auth/revocations';
import type { GraphContext } from './context';

const isCaller = (v: unknown): v is Caller =>
  typeof v === 'object' && v !== null && typeof (v as Caller).sessionId === 'string' && typeof (v as Caller).realm === 'string';

/** The bearer callers an operation's resolvers established (each verified token is in the request's memo). */
async function callersOf(context: GraphContext): Promise<Caller[]> {
  const settled = await Promise.allSettled(context.memo.values());
  return settled.flatMap((s) => (s.status === 'fulfilled' && isCaller(s.value) ? [s.value] : []));
}

/**
 * A subscription whose caller's session is ended while it runs (logout, revocation, a disabled user
 * or client) ends with one UNAUTHENTICATED error, and the work behind it (the model call) stops:
 * a socket's new operations are refused by the verifier, and this ends those already running, on
 * every transport (graphql-ws, SSE, multipart). Anything else passes through as it is.
 */
export async function subscriptionUntilRevoked<O>(
  outcome: O,
  context: GraphContext,
  list: Pick<RevocationList, 'watch'> | undefined,
): Promise<O> {
  if (!list || typeof outcome !== 'object' || outcome === null || !(Symbol.asyncIterator in outcome)) return outcome;
  const callers = await callersOf(context);
  if (callers.length === 0) return outcome;
  const ended = (): ExecutionResult => ({
    errors: [new GraphQLError('Invalid token: revoked', { extensions: { code: 'UNAUTHENTICATED', reason: 'invalid_token' } })],
  });
  return endWhenRevoked(outcome as unknown as AsyncIterator<ExecutionResult>, callers.map(sessionOfCaller), list, ended) as unknown as O;
}
