import { parse, subscribe, type DocumentNode, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { createClient } from 'graphql-ws';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { FORWARDED_HEADERS, type GraphContext } from '../edge/graphql/context';
import { formatExecutionError } from '../edge/graphql/errors';
import { injectTrace, type Trace } from '../core/shared/telemetry/tracing';
import type { SubgraphFetches } from './fetch-telemetry';

/** The subscription the gateway sends to the subgraph that owns its root field. */
export interface SubgraphOperation {
  query: string;
  operationName?: string;
  variables: Record<string, unknown>;
  context: GraphContext;
}

/**
 * Opens subscriptions on subgraphs: their events as a subgraph's client would see them (errors
 * already coded), or the result that refused the subscription.
 */
export interface SubgraphStream {
  open(serviceName: string, operation: SubgraphOperation): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

export type StreamTarget = { schema: GraphQLSchema } | { url: string };

export interface SubgraphStreamOptions {
  targets: Record<string, StreamTarget>;
  log: Logger;
  /** How long a remote subgraph may take to accept a socket's connection_init (default 120 s). */
  ackTimeoutMs?: number;
  /** Times each stream over its whole life, in its span when remote (fetch-telemetry.ts). */
  fetches?: SubgraphFetches;
}

type Event = ExecutionResult | { data?: unknown; errors?: readonly GraphQLFormattedError[] };
const failed = (message: string): ExecutionResult => ({ errors: [{ message, extensions: { code: 'UPSTREAM_ERROR' } }] as never });

/** `http(s)://host/graphql` as the `ws(s)://` URL graphql-ws speaks at. */
export const webSocketUrl = (url: string) => url.replace(/^http/i, 'ws');

/** Why a remote subgraph's socket ended a subscription, as the errors of one last event. */
function socketFailure(serviceName: string, err: unknown): ExecutionResult {
  // The subgraph refused the operation (graphql-ws `error` message): its own coded errors.
  if (Array.isArray(err)) return { errors: err };
  const close = err as { code?: unknown; reason?: unknown };
  // graphql-ws's own close when connection_ack did not come within connectionAckWaitTimeout.
  if (close?.code === 4504) return failed(`The ${serviceName} subgraph did not accept the subscription in time`);
  // The subgraph refused the caller's token at connection_init: the caller's fault, as a 401 would be.
  if (close?.code === 4403) {
    const why = typeof close.reason === 'string' ? close.reason.replace(/^Forbidden: /, '') : '';
    return { errors: [{ message: why || 'Invalid token', extensions: { code: 'UNAUTHENTICATED', serviceName } }] as never };
  }
  if (typeof close?.code === 'number') {
    return failed(
      `The ${serviceName} subgraph closed the subscription (${close.code}${typeof close.reason === 'string' && close.reason ? ` ${close.reason}` : ''})`,
    );
  }
  return failed(`The ${serviceName} subgraph is unavailable`);
}

/**
 * A subscription over graphql-ws to a subgraph served on its own, on a socket of its own that
 * carries the caller's credentials in connection_init (as a browser would send them), and the
 * stream's trace as `extensions.traceparent` of the operation (edge/graphql/trace.ts reads it there).
 * Ending the iterator completes the subscription and closes the socket; a socket that fails becomes
 * one last event with an UPSTREAM_ERROR.
 */
function remote(
  serviceName: string,
  url: string,
  op: SubgraphOperation,
  ackTimeoutMs: number,
  at: Trace | undefined,
): AsyncIterableIterator<ExecutionResult> {
  const connectionParams = Object.fromEntries(
    FORWARDED_HEADERS.flatMap((h) => (op.context.headers[h] ? [[h, op.context.headers[h]]] : [])),
  );
  const client = createClient({
    url: webSocketUrl(url),
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: true,
    lazyCloseTimeout: 0,
    retryAttempts: 0,
    connectionAckWaitTimeout: ackTimeoutMs,
    keepAlive: 12_000,
  });
  const trace = injectTrace({}, at);
  const extensions = 'traceparent' in trace ? { extensions: trace } : {};
  const events = client.iterate({ query: op.query, operationName: op.operationName, variables: op.variables, ...extensions });
  let over = false;
  const end = () => {
    over = true;
    events.return?.().catch(() => undefined);
    void client.dispose();
  };
  return {
    async next() {
      if (over) return { done: true, value: undefined };
      try {
        const r = await events.next();
        if (r.done) end();
        return r as IteratorResult<ExecutionResult>;
      } catch (err) {
        end();
        return { done: false, value: socketFailure(serviceName, err) };
      }
    },
    async return() {
      end();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** A result's errors as the subgraph's own server would send them. */
const coded = (result: Event, log: Logger): ExecutionResult =>
  (result.errors ? { ...result, errors: result.errors.map((e) => formatExecutionError(e as never, log)) } : result) as ExecutionResult;

/**
 * Subscriptions in this process run graphql-js's `subscribe` on the subgraph's schema with the
 * gateway's context (the caller verified once); remote subgraphs are reached over graphql-ws.
 */
export function subgraphStream(opts: SubgraphStreamOptions): SubgraphStream {
  const documents = new Map<string, DocumentNode>();
  const parsed = (query: string) => {
    let doc = documents.get(query);
    if (!doc) {
      doc = parse(query);
      // The planner writes one operation per client operation; a bound keeps hostile variety out.
      if (documents.size >= 1000) documents.clear();
      documents.set(query, doc);
    }
    return doc;
  };
  const open = async (
    serviceName: string,
    target: StreamTarget,
    op: SubgraphOperation,
    trace: Trace | undefined,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    if ('url' in target) return remote(serviceName, target.url, op, opts.ackTimeoutMs ?? 120_000, trace);
    const outcome = await subscribe({
      schema: target.schema,
      document: parsed(op.query),
      operationName: op.operationName,
      variableValues: op.variables,
      contextValue: op.context,
    });
    if (!(Symbol.asyncIterator in outcome)) return coded(outcome, opts.log);
    const log = opts.log;
    const events: AsyncIterableIterator<ExecutionResult> = {
      async next() {
        const r = await outcome.next();
        return r.done ? r : { done: false, value: coded(r.value, log) };
      },
      return: async () => outcome.return(undefined),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return events;
  };
  return {
    async open(serviceName, op) {
      const target = opts.targets[serviceName];
      if (!target) return failed(`No ${serviceName} subgraph is configured`);
      const parent = op.context.trace;
      return opts.fetches
        ? opts.fetches.stream(serviceName, 'url' in target, parent, (trace) => open(serviceName, target, op, trace))
        : open(serviceName, target, op, parent);
    },
  };
}
