import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { extractTrace, injectTrace, inSpan, traceFields } from '../../../../core/shared/telemetry/tracing';

/** The span helpers the services use, with a provider registered as bin/tracing.ts registers one. */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// The AsyncLocalStorage context manager and the W3C propagator, as in production.
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();

describe('span helpers', () => {
  it('inSpan nests through async code and marks a failure with the error message only', async () => {
    await inSpan('outer', {}, async () => {
      await new Promise((r) => setTimeout(r, 1));
      await inSpan('inner', { k: 'v' }, async () => undefined);
    });
    await expect(inSpan('failing', {}, async () => {
      throw new Error('no such model');
    })).rejects.toThrow('no such model');
    const [inner, outer, failing] = spans();
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
    expect(inner!.attributes).toEqual({ k: 'v' });
    expect(failing!.status).toEqual({ code: 2, message: 'no such model' });
  });

  it('injects and extracts W3C traceparent, and names the trace for logs', async () => {
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await context.with(extractTrace(incoming), () => inSpan('server', {}, async () => {
      const headers = injectTrace({});
      expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      expect(traceFields().trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    }));
    expect(traceFields()).toEqual({});
  });
});
