import type { Request, RequestHandler, Response } from 'express';
import { secondsSince, type Metrics } from '../../core/shared/telemetry/metrics';
import { extractTrace, SpanKind, startSpan, type Span, type Trace } from '../../core/shared/telemetry/tracing';

/** Paths outside the services' routers that get a label of their own; any other unmatched path is `other`. */
const FIXED = new Set(['/', '/healthz', '/readyz', '/graphql', '/graphiql']);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const HOOK = 'telemetryHook';
const TRACE = 'trace';

interface Hook {
  streams: (route: string) => () => void;
}

/**
 * A request's server span (tracing on). The one GraphQL operation a request to /graphql
 * carries names it after itself (`renamed`; gateway/operation-span.ts) instead of opening a span of
 * its own: for such a request the HTTP exchange and the operation are one piece of work.
 */
export interface RequestSpan {
  span: Span;
  trace: Trace;
  /** Set once something took the span as its own, so that nothing else does. */
  claimed?: boolean;
  /** Set once the span has a name other than `METHOD route`, which its end then keeps. */
  renamed?: boolean;
}

/** The request's server span, when tracing is on (serverTelemetry). */
export const requestSpanOf = (res: Response): RequestSpan | undefined => res.locals[TRACE] as RequestSpan | undefined;

/** The trace of a request's work: its server span, when tracing is on (serverTelemetry). */
export const traceOf = (res: Response): Trace | undefined => requestSpanOf(res)?.trace;

/** A router names the route a request matched (its template, `/api/v2/objects/:id`): the label and the span's name. */
export function routeMatched(res: Response, route: string): void {
  res.locals.route = route;
}

/** The route's template, or a fixed path; `req.path` is relative to a mounted router, so the original URL's path is read. */
export function routeOf(req: Request, res: Response): string {
  const matched = res.locals.route as string | undefined;
  if (matched) return matched;
  const path = req.originalUrl.split('?')[0];
  return FIXED.has(path) ? path : 'other';
}

/**
 * Counts a streamed answer (SSE, NDJSON, multipart) among the open ones until its response closes.
 * Call it when the stream's head is sent.
 */
export function streamOpened(req: Request, res: Response): void {
  const hook = res.locals[HOOK] as Hook | undefined;
  // A response that closed already (the client left while the answer was starting) has no close to come.
  if (!hook || res.closed) return;
  res.once('close', hook.streams(routeOf(req, res)));
}

/**
 * Every request's metrics and span. The histogram of durations by method, route template and
 * status (499 when the caller left before the answer ended) gives requests, errors and latency;
 * with tracing on, a server span continues the caller's `traceparent`, named `METHOD route`; the
 * work the request does is given its trace (`traceOf(res)`: the router's `Ctx.trace`, GraphContext's).
 */
export function serverTelemetry(opts: { metrics: Metrics; tracing: boolean }): RequestHandler {
  const duration = opts.metrics.histogram({
    name: 'platform_http_server_request_duration_seconds',
    help: 'HTTP requests by method, route template and status; _count is the number of requests',
    labels: ['method', 'route', 'status'],
  });
  const open = opts.metrics.gauge({
    name: 'platform_http_streams_open',
    help: 'Streamed answers (SSE, NDJSON, multipart) being written now',
    labels: ['route'],
  });
  const hook: Hook = {
    streams(route) {
      open.inc({ route });
      return () => open.dec({ route });
    },
  };
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.locals[HOOK] = hook;
    const method = METHODS.has(req.method) ? req.method : 'other';
    if (!opts.tracing) {
      res.once('close', () =>
        duration.observe({ method, route: routeOf(req, res), status: res.writableFinished ? res.statusCode : 499 }, secondsSince(start)),
      );
      return next();
    }
    const { span, trace } = startSpan(
      extractTrace(req.headers),
      method,
      {
        'http.request.method': req.method,
        'url.path': req.path,
        'url.scheme': req.protocol,
        'x-request-id': String(res.getHeader('x-request-id') ?? ''),
      },
      SpanKind.SERVER,
    );
    const own: RequestSpan = { span, trace };
    res.locals[TRACE] = own;
    res.once('close', () => {
      const route = routeOf(req, res);
      const status = res.writableFinished ? res.statusCode : 499;
      duration.observe({ method, route, status }, secondsSince(start));
      if (!own.renamed) span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: 2 });
      span.end();
    });
    next();
  };
}
