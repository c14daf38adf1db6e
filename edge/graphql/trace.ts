import { SpanStatusCode } from '@opentelemetry/api';
import { extractTrace, failed, type Span, type Trace } from '../../core/shared/telemetry/tracing';

/** A W3C trace context as a JSON object carries it (`traceparent`, and `tracestate` when given). */
function carrierOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}

/**
 * The trace an operation over graphql-ws continues. A WebSocket has no headers a browser can set,
 * so the caller's `traceparent` (and `tracestate`) come in the operation's `extensions`, else in
 * connection_init's payload (then for every operation of the socket). Undefined when neither
 * carries one: the operation's span is then the root of a trace of its own.
 */
export const operationTrace = (extensions: unknown, connectionParams: unknown): Trace | undefined => {
  const carrier = carrierOf(extensions) ?? carrierOf(connectionParams);
  return carrier && extractTrace(carrier);
};

/** Marks a span failed when `error` (with the class and message of `err` when one was thrown). */
export function markFailed(span: Span, error: boolean, err?: unknown): void {
  if (err !== undefined) failed(span, err);
  else if (error) span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Ends a span, marked failed when `error` (with the class and message of `err` when one was thrown). */
export function endSpan(span: Span, error: boolean, err?: unknown): void {
  markFailed(span, error, err);
  span.end();
}

/** How a stream of events ended: `failed` when an event carried errors or the stream threw (`err`). */
export type EventsEnded = (failed: boolean, err?: unknown) => void;

type MaybeErrors = { errors?: readonly unknown[]; incremental?: readonly { errors?: readonly unknown[] }[] } | null | undefined;

/** Whether a GraphQL result carries errors (a deferred part's: in one of its items). */
export const hasErrors = (value: unknown) =>
  Boolean((value as MaybeErrors)?.errors?.length || (value as MaybeErrors)?.incremental?.some((i) => i.errors?.length));

/**
 * `events` with `ended` told once however they end: the last event, a failure, or
 * `return()`/`throw()` (the client completing or leaving, the server stopping), at once even while a
 * pull is pending, so a gauge of open streams comes down the moment the client goes.
 */
export function watchedEvents<T>(events: AsyncIterator<T>, ended: EventsEnded): AsyncIterableIterator<T> {
  let over = false;
  let errors = false;
  const end = (err?: unknown) => {
    if (over) return;
    over = true;
    ended(errors || err !== undefined, err);
  };
  const finished = { done: true, value: undefined } as IteratorReturnResult<undefined> as IteratorResult<T>;
  return {
    async next() {
      try {
        const r = await events.next();
        if (r.done) end();
        else if (hasErrors(r.value)) errors = true;
        return r;
      } catch (err) {
        end(err);
        throw err;
      }
    },
    async return(value?: unknown) {
      end();
      return (await events.return?.(value)) ?? finished;
    },
    async throw(err?: unknown) {
      end();
      return (await (events.throw ? events.throw(err) : events.return?.())) ?? finished;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Opens a result that is either one answer or a stream of them, and tells
 * `ended` once when it is over: at once for a failure to open or a single answer (failed when it
 * carried errors), when the stream ends for a stream (watchedEvents). `streaming` runs first when it
 * is a stream and may wrap what `ended` is told (a gauge of open streams).
 */
export async function watchedOpening<T>(
  open: () => Promise<AsyncIterableIterator<T> | T>,
  ended: EventsEnded,
  streaming?: () => EventsEnded,
): Promise<AsyncIterableIterator<T> | T> {
  let opened: AsyncIterableIterator<T> | T;
  try {
    opened = await open();
  } catch (err) {
    ended(true, err);
    throw err;
  }
  if (!(typeof opened === 'object' && opened !== null && Symbol.asyncIterator in opened)) {
    ended(hasErrors(opened));
    return opened;
  }
  return watchedEvents(opened, streaming?.() ?? ended);
}
