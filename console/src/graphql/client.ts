import { Client, fetchExchange, mapExchange, subscriptionExchange, type CombinedError } from 'urql';
import { createClient as createWsClient } from 'graphql-ws';
import { session } from '../auth/session';
import { lmKey } from './lm-key';

/**
 * The console's one door to the platform: the federated graph at `/graphql`, queries and mutations
 * over HTTP, subscriptions over graphql-ws, each carrying the signed-in person's token (the
 * `authorization` header, or the connection's `connection_init` parameters, with the LM key the
 * playgrounds were given as `api-key`: lm-key.ts).
 */
const ws = createWsClient({
  url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
  lazy: true,
  connectionParams: async () => {
    const bearer = await session.bearer();
    const params: Record<string, string> = {};
    if (bearer) params.authorization = `Bearer ${bearer}`;
    if (lmKey.get()) params['api-key'] = lmKey.get();
    return params;
  },
});

/** The verifier's word for a token whose session was ended (the revoked-sessions list): signing in again is the only way on. */
const revoked = (error: CombinedError | undefined) =>
  !!error?.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED' && e.message === 'Invalid token: revoked');

export const client = new Client({
  url: '/graphql',
  // Every operation asks the graph afresh: administrators change what they read.
  requestPolicy: 'network-only',
  // POST with a JSON body: the graph refuses GETs without a preflighted header (Apollo's CSRF prevention).
  preferGetMethod: false,
  fetchOptions: () => ({}),
  fetch: async (input, init) => {
    const bearer = await session.bearer();
    const headers = new Headers(init?.headers);
    if (bearer) headers.set('authorization', `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  },
  exchanges: [
    // A session ended elsewhere (another browser of the person, an administrator) signs this tab out, saying so.
    mapExchange({
      onResult(result) {
        if (revoked(result.error)) session.revoked();
      },
    }),
    fetchExchange,
    subscriptionExchange({
      forwardSubscription: (request) => ({
        subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
      }),
    }),
  ],
});
