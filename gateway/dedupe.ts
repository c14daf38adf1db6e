import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { OperationTypeNode } from 'graphql';
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
  if (opts.incomingRequestContext.operation?.operation !== OperationTypeNode.QUERY) return undefined;
  const { request, context } = opts;
  const h = context.headers ?? {};
  return JSON.stringify([
    request.query,
    request.operationName ?? null,
    request.variables ?? null,
    h.authorization ?? null,
    h['api-key'] ?? null,
    context.clientAddress ?? null,
  ]);
}

/** A call's share of a run: its result, and whether the run is its own or whose it joined. */
export interface Share<T, O> {
  result: Promise<T>;
  /** The run is this call's (its key was new, or it had none). */
  mine: boolean;
  /** The owner given by the call whose run this one joined. */
  joined?: O;
}

/**
 * Runs `fn` for a key unless a run for the same key is in flight, whose promise is then shared;
 * `owner` (the first caller's trace) is handed to those who join it.
 */
export function inflight<T, O = undefined>(): (key: string | undefined, fn: () => Promise<T>, owner?: O) => Share<T, O> {
  const running = new Map<string, { result: Promise<T>; owner?: O }>();
  return (key, fn, owner) => {
    if (key === undefined) return { result: fn(), mine: true };
    const found = running.get(key);
    if (found) return { result: found.result, mine: false, joined: found.owner };
    const result = fn().finally(() => running.delete(key));
    running.set(key, { result, owner });
    return { result, mine: true };
  };
}
