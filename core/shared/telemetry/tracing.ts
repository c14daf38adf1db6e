import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/**
 * Spans through OpenTelemetry's API, which records nothing until a tracer provider is registered
 * (bin/tracing.ts does, when OTEL_TRACES_EXPORTER=otlp): off, each call below costs a no-op span.
 *
 * The trace is carried by hand, never through AsyncLocalStorage: each span is started under the
 * `Trace` its caller passes (a request's server span, an operation's, a call's), and the work done in
 * it is given the span's own `Trace` in turn (`Ctx.trace` in a service call, `GraphContext.trace` in
 * a resolver, `Exchange.trace` on the outbound transport). On Node 20 an AsyncLocalStorage context
 * slows every promise the process makes, whether or not a span is recorded (docs/observability.md).
 * Without a parent, a span falls back to the active context, which is the root unless the embedding
 * program registered a context manager of its own.
 */
let cached: { provider: TracerProvider; tracer: Tracer } | undefined;
/** The platform's tracer, looked up again only when the registered provider changes. */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer('ai-platform') };
  return cached.tracer;
}

/** Where in a trace new work belongs: the span it is a child of (OpenTelemetry's Context). */
export type Trace = Context;

export { SpanKind };
export type { Span, Attributes };

const parentOr = (parent: Trace | undefined): Trace => parent ?? context.active();

/** Marks the span failed with the error's class and message (never the input that caused it). */
export function failed(span: Span, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  span.recordException({ name: e.name, message: e.message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

/** Starts a span under `parent` that the caller ends (a stream's, ended when the stream does), and the trace of the work done in it. */
export function startSpan(
  parent: Trace | undefined,
  name: string,
  attributes: Attributes,
  kind = SpanKind.INTERNAL,
): { span: Span; trace: Trace } {
  const under = parentOr(parent);
  const span = tracer().startSpan(name, { kind, attributes }, under);
  return { span, trace: trace.setSpan(under, span) };
}

/** Runs `fn` in a new span under `parent`, ended when `fn` settles; `fn` gets the span and the trace of the work it does in it. */
export async function inSpan<T>(
  parent: Trace | undefined,
  name: string,
  attributes: Attributes,
  fn: (span: Span, inside: Trace) => Promise<T>,
  kind = SpanKind.INTERNAL,
): Promise<T> {
  const { span, trace: inside } = startSpan(parent, name, attributes, kind);
  try {
    return await fn(span, inside);
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Marks the span of `at` as served by work done in another span, `by` (a deduplicated fetch that
 * joined another caller's): a link to it, and `shared: true`. Nothing when either is not recorded.
 */
export function linkShared(at: Trace | undefined, by: Trace | undefined): void {
  const span = at && trace.getSpan(at);
  const other = by && trace.getSpanContext(by);
  if (!span?.isRecording() || !other) return;
  span.addLink({ context: other });
  span.setAttribute('shared', true);
}

/** Adds the trace `at` names (`traceparent`, `tracestate`) to an outbound request's headers. */
export function injectTrace(headers: Record<string, string>, at: Trace | undefined): Record<string, string> {
  propagation.inject(parentOr(at), headers);
  return headers;
}

/** The trace an inbound request's `traceparent` names (the root when it has none). */
export const extractTrace = (headers: Record<string, string | string[] | undefined>): Trace => propagation.extract(ROOT_CONTEXT, headers);

/** The trace and span ids of `at` for a log line; nothing outside a recorded span. */
export function traceFields(at: Trace | undefined): { trace_id?: string; span_id?: string } {
  const span = at && trace.getSpan(at);
  if (!span) return {};
  const c = span.spanContext();
  return c.traceFlags & 1 ? { trace_id: c.traceId, span_id: c.spanId } : {};
}
