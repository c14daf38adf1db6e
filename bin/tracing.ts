import type { Logger } from 'pino';
import type { Config } from '../core/shared/config';

/**
 * OpenTelemetry traces, on when OTEL_TRACES_EXPORTER names `otlp` (the standard variables, read by
 * the SDK itself: OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT, OTEL_BSP_*,
 * OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES; checked at start in core/shared/config.ts).
 * OTLP over HTTP, as protobuf (`http/protobuf`, the default) or JSON (`http/json`). Each process
 * registers its own provider: a batch of spans leaves every OTEL_BSP_SCHEDULE_DELAY ms (5 s by
 * default), and what is left is sent when the process stops. The SDK is loaded only when on.
 */
/** The tracer @apollo/gateway records its own spans with. */
const APOLLO_TRACER = 'apollo/gateway-js';

export interface Tracing {
  /** Sends what is buffered, then stops recording; never fails (a collector that is down or stalls costs the spans, with a warning). */
  shutdown(): Promise<void>;
}

/** How often at most a failing export is logged: a collector down fails every batch. */
const WARN_EVERY_MS = 60_000;

/** An SDK error's message: the SDK hands errors to its diagnostic logger as JSON of their properties (stack included). */
function messageOf(value: unknown): string {
  if (typeof value !== 'string') return value instanceof Error ? value.message : String(value);
  try {
    const parsed = JSON.parse(value) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // not JSON: the message itself
  }
  return value;
}

/**
 * The SDK's errors (a batch the collector refused or never answered) as warnings, at most one a
 * minute, with how many were left unsaid. Only the error's message: never the spans, the headers
 * or a stack.
 */
function errorWarnings(log: Logger): (message: unknown) => void {
  let last = 0;
  let unsaid = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < WARN_EVERY_MS) {
      unsaid++;
      return;
    }
    const more = unsaid ? ` (and ${unsaid} more in the last minute)` : '';
    last = now;
    unsaid = 0;
    log.warn(`traces: ${messageOf(message)}${more}; spans may be lost: check OTEL_EXPORTER_OTLP_ENDPOINT and the collector`);
  };
}

export const tracingWanted = (config: Config): boolean => config.OTEL_TRACES_EXPORTER.includes('otlp') && !config.OTEL_SDK_DISABLED;

export function startTracing(config: Config, role: string, log: Logger): Tracing | undefined {
  if (!tracingWanted(config)) return undefined;
  const { NodeTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const protocol = config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL;
  const { OTLPTraceExporter } = (
    protocol === 'http/json' ? require('@opentelemetry/exporter-trace-otlp-http') : require('@opentelemetry/exporter-trace-otlp-proto')
  ) as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the platform's own name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': role === 'all' ? 'ai-platform' : `ai-platform-${role}` }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  // Each copy of @opentelemetry/core in the tree reports a failed export to the API's diagnostic
  // logger (silent unless set), which is global: set here, it reaches the platform's log.
  const warn = errorWarnings(log);
  const quiet = () => undefined;
  api.diag.setLogger(
    { error: warn, warn: quiet, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: api.DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
  // What provider.register() would do, less two things. No context manager: the platform carries
  // each request's trace by hand (core/shared/telemetry/tracing.ts), since on Node 20 the
  // AsyncLocalStorage one slows every promise of the process, traced or not (about 5% of the GraphQL
  // query's throughput; docs/decisions.md, Issue 21). And @apollo/gateway's own spans (gateway.request, .validate, .plan, .execute,
  // .fetch, .postprocessing) left unrecorded: the gateway's `graphql <type> <operation>` and
  // `subgraph <name>` spans say the same, and six more spans a request cost a fifth of its CPU.
  const silent = new api.ProxyTracerProvider();
  api.propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  api.trace.setGlobalTracerProvider({
    getTracer: (name, version, options) =>
      name === APOLLO_TRACER ? silent.getTracer(name, version, options) : provider.getTracer(name, version, options),
  });
  return {
    shutdown: () =>
      provider.shutdown().catch((err: unknown) => {
        log.warn(`traces still buffered at stop not exported: ${messageOf(err)}`);
      }),
  };
}
