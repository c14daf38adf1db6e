import type { Response } from 'express';
import type { DocumentNode, ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import type { GraphContext } from '../edge/graphql/context';
import { formatExecutionError } from '../edge/graphql/errors';
import type { OperationPayload } from '../edge/graphql/prepare';
import type { SocketGraph } from '../edge/graphql/ws';

/**
 * What the HTTP streaming transports (GraphQL over SSE, multipart) share: run an operation, relay its
 * results, stop when the client leaves. Their responses are written by the edge's writer (edge/http/event-stream.ts).
 */
type Result = ExecutionResult | FormattedExecutionResult;
export type Outcome = AsyncIterableIterator<Result> | Result;

export const isStream = (o: Outcome): o is AsyncIterableIterator<Result> => Symbol.asyncIterator in o;

/** The answer sent when an operation's events fail midway (the cause is logged, never shown). */
export const INTERNAL_ERROR = { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };

/** Starts one operation on the graph: a subscription's events, or the one result of a query or mutation. */
export async function startOperation(
  graph: Required<SocketGraph>,
  kind: 'subscription' | 'other',
  document: DocumentNode,
  payload: OperationPayload,
  contextValue: GraphContext,
): Promise<Outcome> {
  const args = { schema: graph.schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue };
  return (kind === 'subscription' ? graph.subscribe(args) : graph.execute(args)) as Promise<Outcome>;
}

/** Ends a subscription's events (and so the subgraph's stream and the model call behind it). */
export const stopOutcome = (o: Outcome) => void (isStream(o) ? o.return?.()?.catch(() => undefined) : undefined);

/**
 * Ends the outcome's events when the response closes: the client leaving, the server stopping; at
 * once when it closed while the operation was starting. Returns what stops watching.
 */
export function stopOnClose(res: Response, outcome: Outcome): () => void {
  const stop = () => stopOutcome(outcome);
  if (res.closed) {
    stop();
    return () => undefined;
  }
  res.once('close', stop);
  return () => res.off('close', stop);
}

export interface RelayOptions {
  /** One result, its errors formatted as every transport formats them. */
  send(result: FormattedExecutionResult): Promise<void>;
  /** The events failed midway (logged here). */
  failed(): Promise<void>;
  /** True once the client has gone: no further event is read. */
  stopped(): boolean;
  log: Logger;
}

/** Sends an operation's results until they end, the client stops (its events are then ended), or they fail. */
export async function relay(outcome: Outcome, opts: RelayOptions): Promise<void> {
  const format = (r: Result): FormattedExecutionResult =>
    r.errors ? { ...r, errors: r.errors.map((e) => formatExecutionError(e, opts.log)) } : r;
  if (!isStream(outcome)) return opts.send(format(outcome));
  try {
    for (;;) {
      const r = await outcome.next();
      if (r.done) return;
      if (opts.stopped()) return stopOutcome(outcome);
      await opts.send(format(r.value));
    }
  } catch (err) {
    opts.log.error({ err }, 'subscription failed');
    await opts.failed();
  }
}
