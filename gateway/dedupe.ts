import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GraphContext } from '../edge/graphql/context';

/**
 * Identical subgraph fetches in flight at once share one: what Apollo's router calls query
 * deduplication and Hive Gateway does by default. Only fetches of an incoming *query* qualify
 * (never a mutation's, nor a subscription's per-event fetches), and the key holds everything the
 * answer may depend on: the operation, its variables and the caller's credentials and address. The
 * request id is left out, so deduplicated callers share one subgraph log line.
 */
export function dedupeKey(opts: GraphQLDataSourceProcessOptions<Partial<GraphContext>>): string | undefined {
  // @apollo/gateway does not export the kinds' enum; its value for a client's operation:
  if ((opts.kind as string) !== 'incoming operation' || !('incomingRequestContext' in opts)) return undefined;
  if (opts.incomingRequestContext.operation?.operation !== 'query') return undefined;
  const { request, context } = opts;
  const h = context.headers ?? {};
  return JSON.stringify([request.query, request.operationName ?? null, request.variables ?? null, h.authorization ?? null, h['api-key'] ?? null, context.clientAddress ?? null]);
}

/** Runs `fn` for a key unless a run for the same key is in flight, whose promise is then shared. */
export function inflight<T>(): (key: string | undefined, fn: () => Promise<T>) => Promise<T> {
  const running = new Map<string, Promise<T>>();
  return (key, fn) => {
    if (key === undefined) return fn();
    let p = running.get(key);
    if (!p) {
      p = fn().finally(() => running.delete(key));
      running.set(key, p);
    }
    return p;
  };
}
