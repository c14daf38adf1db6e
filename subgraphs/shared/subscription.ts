import { CallerLeft } from '../../core/shared/cancel';
import type { GraphContext } from '../../edge/graphql/context';

/**
 * What the subgraphs' streamed answers (chat's answerStream, models' chatStream) share: the signal
 * that stops the model call behind a subscription, and the iterator the subscription returns.
 */

/**
 * A subscription's stop: aborted by the subscriber completing it (`stoppable`'s return()), or by its
 * transport's end (ctx.signal: a socket that closes, an HTTP client that leaves), also before the
 * first event. `signal` goes into the service call's ctx.
 */
export function subscriberStop(ctx: GraphContext): { stop: AbortController; signal: AbortSignal } {
  const stop = new AbortController();
  return { stop, signal: ctx.signal ? AbortSignal.any([stop.signal, ctx.signal]) : stop.signal };
}

/**
 * A source's values as a subscription's events (`view` of each, in order). `return()` (the client
 * completed the subscription, or its socket closed) aborts `stop` at once, even while a value is
 * awaited: an async generator would queue the return behind that wait, and a stalled model would
 * then never be stopped.
 */
export function stoppable<T, V>(source: AsyncIterable<T>, stop: AbortController, view: (value: T) => V): AsyncIterableIterator<V> {
  const values = source[Symbol.asyncIterator]();
  return {
    async next() {
      const r = await values.next();
      if (r.done) return { done: true, value: undefined };
      return { done: false, value: view(r.value) };
    },
    async return() {
      // Why the stream stopped early: the subscriber completed it or went away.
      stop.abort(new CallerLeft('The subscriber left before the answer was complete'));
      // Ends the source once its pending value settles (the abort makes it settle).
      values.return?.(undefined).catch(() => undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
