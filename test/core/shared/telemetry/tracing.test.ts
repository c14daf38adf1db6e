import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { extractTrace, injectTrace, inSpan, startSpan, traceFields } from '../../../../core/shared/telemetry/tracing';

/**
 * The span helpers the services use, with a provider and the W3C propagator registered as
 * bin/tracing.ts registers them: no context manager, so every parent is the one passed.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();

describe('span helpers', () => {
  it('inSpan starts its span under the trace it is given, across awaits, and marks a failure with the error message only', async () => {
    await inSpan(undefined, 'outer', {}, async (_span, outer) => {
      await new Promise((r) => setImmediate(r));
      await inSpan(outer, 'inner', { k: 'v' }, async () => undefined);
    });
    await expect(
      inSpan(undefined, 'failing', {}, async () => {
        throw new Error('no such model');
      }),
    ).rejects.toThrow('no such model');
    const [inner, outer, failing] = spans();
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(inner.attributes).toEqual({ k: 'v' });
    expect(outer.parentSpanContext).toBeUndefined();
    expect(failing.status).toEqual({ code: 2, message: 'no such model' });
    expect(failing.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });

  it("nothing is carried implicitly: a span without a parent is a root, even inside another span's work", async () => {
    await inSpan(undefined, 'request', {}, async () => {
      await inSpan(undefined, 'unrelated', {}, async () => undefined);
    });
    const [unrelated, request] = spans();
    expect(unrelated.parentSpanContext).toBeUndefined();
    expect(unrelated.spanContext().traceId).not.toBe(request.spanContext().traceId);
  });

  it('a span started for a stream is ended by its owner; its trace parents what the stream does later', async () => {
    const { span, trace: inside } = startSpan(undefined, 'stream', {});
    await new Promise((r) => setImmediate(r));
    await inSpan(inside, 'later pull', {}, async () => undefined);
    expect(spans().map((s) => s.name)).toEqual(['later pull']);
    span.end();
    const [pull, stream] = spans();
    expect(pull.parentSpanContext?.spanId).toBe(stream.spanContext().spanId);
  });

  it('injects and extracts W3C traceparent, and names the trace for logs', async () => {
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await inSpan(extractTrace(incoming), 'server', {}, async (_span, inside) => {
      const headers = injectTrace({}, inside);
      expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      expect(headers.traceparent).not.toContain('b7ad6b7169203331');
      expect(traceFields(inside).trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    });
    expect(spans()[0].parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(traceFields(undefined)).toEqual({});
    expect(injectTrace({}, undefined)).toEqual({});
    // A traceparent that is not one starts no trace.
    expect(traceFields(extractTrace({ traceparent: 'not-a-traceparent' }))).toEqual({});
  });
});
