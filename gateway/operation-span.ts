import type { Attributes } from '@opentelemetry/api';
import { startSpan, type Span, type Trace } from '../core/shared/telemetry/tracing';
import type { GraphContext } from '../edge/graphql/context';
import { endSpan, markFailed } from '../edge/graphql/trace';

/** The span a GraphQL operation runs in. */
export interface OperationSpan {
  /** The trace of the operation's work (its fetches, its resolvers' spans). */
  trace: Trace | undefined;
  /** Names the span (`graphql query Hello`), with the operation's attributes. */
  name(name: string, attributes: Attributes): void;
  /** The operation is over: the span marked failed when `error` (with `err`'s class and message when one was thrown). */
  end(error: boolean, err?: unknown): void;
}

/**
 * The span of the operation `context` carries. An operation that an HTTP request carries alone and
 * answers in its response (POST or GET /graphql, a subscription over SSE or multipart) runs in that
 * request's server span, which it names after itself (the GraphQL attributes beside the HTTP ones)
 * and which the response ends: the exchange and the operation are one piece of work, and one span
 * instead of two saves a sixth of what tracing costs a small query (docs/observability.md).
 * Otherwise (graphql-ws, GraphQL over SSE's single connection, a second operation of one request)
 * a span of its own under the context's trace, named `graphql` until `name` is called.
 */
export function operationSpan(context: GraphContext): OperationSpan {
  const own = context.requestSpan;
  if (own && !own.claimed) {
    own.claimed = true;
    return {
      trace: context.trace,
      name(n, attributes) {
        own.renamed = true;
        named(own.span, n, attributes);
      },
      // The response ends the span (serverTelemetry); a failure marks it meanwhile.
      end: (error, err) => markFailed(own.span, error, err),
    };
  }
  const { span, trace } = startSpan(context.trace, 'graphql', {});
  return {
    trace: span.isRecording() ? trace : context.trace,
    name: (n, attributes) => named(span, n, attributes),
    end: (error, err) => endSpan(span, error, err),
  };
}

function named(span: Span, name: string, attributes: Attributes): void {
  span.updateName(name);
  span.setAttributes(attributes);
}
