import type { ApolloServerPlugin } from '@apollo/server';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { boundedLabel, noMetrics, secondsSince, type Metrics } from '../core/shared/telemetry/metrics';
import type { GraphContext } from '../edge/graphql/context';
import { watchedOpening, type EventsEnded } from '../edge/graphql/trace';
import { operationSpan } from './operation-span';

/** The transports a subscription is open on. */
export type Transport = 'ws' | 'sse' | 'multipart';

type Outcome = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

/** A subscription as a transport hands it over, with the context of its caller. */
export interface SubscriptionArgs {
  document: DocumentNode;
  operationName?: string | null;
  contextValue: GraphContext;
}

const NAME = /^[A-Za-z0-9_]{1,64}$/;
const MAX_OPERATIONS = 200;

/**
 * An operation's name as a label (and in its span's name): `anonymous` without one, `invalid` when
 * it is not 1 to 64 of [A-Za-z0-9_], else itself for the first 200 names this process sees and
 * `other` after, so a client naming every operation differently cannot grow the series.
 */
export function operationLabel(metrics: Metrics): (name: string | null | undefined) => string {
  // Metrics off, the span names are bounded all the same.
  const bounded = metrics === noMetrics ? boundedLabel(MAX_OPERATIONS) : metrics.bounded('operation', MAX_OPERATIONS);
  return (name) => (!name ? 'anonymous' : NAME.test(name) ? bounded(name) : 'invalid');
}

export interface OperationTelemetry {
  /**
   * Every operation Apollo Server runs (POST and GET /graphql, and the queries and mutations that
   * graphql-ws and GraphQL over SSE hand it): counted and timed from request to response once it
   * names an operation, in a span `graphql <type> <operation>` (operation-span.ts: the HTTP
   * request's own when it carries the operation), whose trace becomes the operation's work's.
   */
  plugin: ApolloServerPlugin<GraphContext>;
  /**
   * A subscription over `transport`, started by `start`: open (the gauge) from its start to its end
   * however it ends, counted and timed over its whole life, in a span `graphql subscription <operation>`
   * (operation-span.ts), whose trace becomes its work's (its stream, its events' fetches).
   */
  subscribe(transport: Transport, args: SubscriptionArgs, start: () => Promise<Outcome>): Promise<Outcome>;
  /**
   * A query or mutation with `@defer`, which the gateway runs itself (gateway/defer/): counted and
   * timed as Apollo Server's, from its start to its last part, in its span `graphql <type> <operation>`.
   */
  deferred<T>(args: SubscriptionArgs, start: () => Promise<AsyncIterableIterator<T> | T>): Promise<AsyncIterableIterator<T> | T>;
}

/** platform_graphql_operations_total, _operation_duration_seconds and _subscriptions_open, and the operations' spans. */
export function operationTelemetry(metrics: Metrics = noMetrics): OperationTelemetry {
  const counting = metrics !== noMetrics;
  const labels = ['operation', 'type', 'outcome'];
  const total = metrics.counter({
    name: 'platform_graphql_operations_total',
    help: 'GraphQL operations the gateway served, by operation name, type and outcome (error: the answer or an event carried errors)',
    labels,
  });
  const duration = metrics.histogram({
    name: 'platform_graphql_operation_duration_seconds',
    help: 'GraphQL operations: queries and mutations from request to response, subscriptions over their whole life',
    labels,
  });
  const open = metrics.gauge({
    name: 'platform_graphql_subscriptions_open',
    help: 'Subscriptions open now, by transport (ws, sse, multipart)',
    labels: ['transport'],
  });
  const transports: Record<Transport, { transport: Transport }> = {
    ws: { transport: 'ws' },
    sse: { transport: 'sse' },
    multipart: { transport: 'multipart' },
  };
  // Every transport's series from the start (0, never reset: a second declaration shares the gauge).
  for (const t of Object.values(transports)) open.inc(t, 0);
  const label = operationLabel(metrics);

  const now = () => (counting ? process.hrtime.bigint() : 0n);
  const record = (operation: string, type: string, error: boolean, start: bigint) => {
    if (!counting) return;
    const l = { operation, type, outcome: error ? 'error' : 'ok' };
    total.inc(l);
    duration.observe(l, secondsSince(start));
  };

  return {
    plugin: {
      async requestDidStart({ contextValue }) {
        const start = now();
        const span = operationSpan(contextValue);
        contextValue.trace = span.trace;
        let type: string | undefined;
        let operation = 'anonymous';
        let error = false;
        return {
          async didResolveOperation({ operation: op, operationName }) {
            // No operation of that name: Apollo refuses it next.
            if (!op) return;
            type = op.operation;
            operation = label(operationName);
            span.name(`graphql ${type} ${operation}`, { 'graphql.operation.type': type, 'graphql.operation.name': operation });
          },
          async didEncounterErrors() {
            error = true;
          },
          async willSendResponse() {
            // A request refused before it named an operation (syntax, validation, an unknown name, a
            // persisted query not found) is no operation: its 400 is in the HTTP request metrics.
            if (type) record(operation, type, error, start);
            span.end(error);
          },
        };
      },
    },

    async subscribe(transport, { document, operationName, contextValue }, start) {
      const began = now();
      const operation = label(getOperationAST(document, operationName)?.name?.value);
      const span = operationSpan(contextValue);
      span.name(`graphql subscription ${operation}`, { 'graphql.operation.type': 'subscription', 'graphql.operation.name': operation });
      contextValue.trace = span.trace;
      const ended = (error: boolean, err?: unknown) => {
        record(operation, 'subscription', error, began);
        span.end(error, err);
      };
      return watchedOpening(start, ended, () => {
        open.inc(transports[transport]);
        return ((error, err) => {
          open.dec(transports[transport]);
          ended(error, err);
        }) satisfies EventsEnded;
      });
    },

    async deferred({ document, operationName, contextValue }, start) {
      const began = now();
      const op = getOperationAST(document, operationName);
      const type = op?.operation ?? 'query';
      const operation = label(op?.name?.value);
      const span = operationSpan(contextValue);
      span.name(`graphql ${type} ${operation}`, { 'graphql.operation.type': type, 'graphql.operation.name': operation });
      contextValue.trace = span.trace;
      return watchedOpening(start, (error, err) => {
        record(operation, type, error, began);
        span.end(error, err);
      });
    },
  };
}
