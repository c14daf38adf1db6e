import type { Credentials, CredentialTools } from '../../core/shared/auth/credentials';
import type { Ctx } from '../../core/shared/context';
import { presentedBy, type GraphContext } from './context';

/**
 * The `ctx` of a service call made by a resolver: the service's caller established from the
 * request's credentials as its module declares, once per request (every field and entity of one
 * operation shares it; a refusal is the same error for each), plus the request id and address.
 */
export type CallOf<C> = (graph: GraphContext, opts?: { signal?: AbortSignal }) => Promise<Ctx<C>>;

export function callsFor<C>(service: string, credentials: Credentials<C>, tools: CredentialTools): CallOf<C> {
  return async (graph, opts = {}) => {
    // Read now: a fetch in process hands its resolvers a context whose trace is the fetch's span.
    const trace = graph.trace;
    let caller = graph.callers.get(service) as Promise<C> | undefined;
    if (!caller) {
      caller = credentials.resolve(presentedBy(graph), tools);
      // Settled either way here: a refusal is raised by each resolver that awaits it, never unhandled.
      caller.catch(() => undefined);
      graph.callers.set(service, caller);
    }
    return { caller: await caller, requestId: graph.requestId, clientAddress: graph.clientAddress, signal: opts.signal, trace } as Ctx<C>;
  };
}

/** What a subgraph's resolvers are built with besides their service. */
export interface SubgraphEdge<C> {
  /** The ctx of a call as the service's callers are declared. */
  callOf: CallOf<C>;
  /** A caller established another way (the token subgraph's `viewer` reads a bearer token), with its own audience or none. */
  callsFor<D>(this: void, credentials: Credentials<D>, audience?: string): CallOf<D>;
}
