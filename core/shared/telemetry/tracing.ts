import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * Spans through OpenTelemetry's API, which records nothing until a tracer provider is registered
 * (bin/tracing.ts does, when OTEL_TRACES_EXPORTER=otlp): off, each call below costs a no-op span.
 * The active span follows the call through async code (AsyncLocalStorage), so a span started
 * here is the child of the request's, and the headers of an outbound request carry it (W3C
 * `traceparent`) to the next process.
 */
const tracer = () => trace.getTracer('ai-platform');

export { SpanKind };
export type { Span, Attributes };

/** Marks the span failed with the error's class and message (never the input that caused it). */
export function failed(span: Span, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  span.recordException({ name: e.name, message: e.message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

/** Runs `fn` in a new span, the active span's child, ended when `fn` settles. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a span that the caller ends (a stream's, ended when the stream does), and the context it is active in. */
export function startSpan(name: string, attributes: Attributes, kind = SpanKind.INTERNAL, parent: Context = context.active()): { span: Span; ctx: Context } {
  const span = tracer().startSpan(name, { kind, attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` active (a span started with startSpan). */
export const within = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);

/**
 * An async iterable each of whose pulls runs with `ctx` active: a stream made inside a span but
 * read later by someone else (the upstream request a lazy stream makes on its first pull) stays in it.
 */
export function bindIterable<T>(ctx: Context, source: AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = context.with(ctx, () => source[Symbol.asyncIterator]());
      return {
        next: () => context.with(ctx, () => it.next()),
        return: (value?: unknown) => context.with(ctx, async () => (await it.return?.(value)) ?? { done: true as const, value: undefined as T }),
      };
    },
  };
}

/** Adds the active trace (`traceparent`, `tracestate`) to an outbound request's headers. */
export function injectTrace(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

/** The context an inbound request's `traceparent` names (the active one when it has none). */
export const extractTrace = (headers: Record<string, string | string[] | undefined>): Context =>
  propagation.extract(context.active(), headers);

/** The active trace and span ids for a log line; nothing outside a recorded span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const c = span.spanContext();
  return c.traceFlags & 1 ? { trace_id: c.traceId, span_id: c.spanId } : {};
}
