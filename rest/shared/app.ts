import express, { type Express, type Router } from 'express';
import pino, { type Logger } from 'pino';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import { MethodNotAllowed, NotFound } from '../../core/shared/errors';
import { noMetrics, type Metrics } from '../../core/shared/telemetry/metrics';
import { serverTelemetry } from '../../edge/http/telemetry';
import { accessLog } from './access-log';
import { cors } from './cors';
import type { WebOrigins } from '../../edge/http/web-origins';
import { DOCS_ASSETS_PATH, docsAssets, docsInitScript } from './docs';
import { httpErrors } from './http-errors';
import { requestId } from './request-id';
import { serverErrors } from './server-errors';
import type { RecentErrors } from '../../core/shared/telemetry/recent-errors';
import { serviceRouter } from './router';
import type { RestService } from './routes';

export interface RestAppOptions {
  log?: Logger;
  bodyLimitBytes?: number;
  /** Verifies bearer tokens for the routes that declare `auth`. */
  verifier?: TokenVerifier;
  /** Peers whose X-Forwarded-For is believed (express `trust proxy`); none when absent. */
  trustProxy?: false | string[];
  /** Origins allowed by CORS (`*` for any). */
  corsOrigins?: readonly string[];
  /** The web origins clients registered (the token service's list), allowed by CORS too. */
  webOrigins?: WebOrigins;
  /** PUBLIC_URL, listed as a server in each OpenAPI document. */
  publicUrl?: string;
  /** Mounted before the final 404, e.g. the federated graph at /graphql. */
  extra?: { path: string; router: Router }[];
  /** What `/readyz` reports; always ready when absent. */
  readiness?: () => Promise<Readiness>;
  /** Where each request is counted and timed (nothing recorded when absent). */
  metrics?: Metrics;
  /** Whether each request gets a server span (OpenTelemetry on). */
  tracing?: boolean;
  /** Between heartbeats of a streamed answer (STREAM_HEARTBEAT_MS); 10 s when absent. */
  heartbeatMs?: number;
  /** Where server-side failures are kept for the overview (server-errors.ts); none kept when absent. */
  recentErrors?: RecentErrors;
}

/** Each check's state (`up`, `down`, `loading`, `draining`); ready only when every one is fine. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/**
 * One express app for every REST face: request ids, the services under their disjoint prefixes
 * (each with its own body parsers, 405s, 404s and error format), the platform health check and
 * index, offline docs assets, then whatever `extra` brings (the graph).
 */
export function createRestApp(services: readonly RestService[], opts: RestAppOptions = {}): Express {
  const log = opts.log ?? pino({ level: 'silent' });
  const app = express();
  app.disable('x-powered-by');
  // API answers are not revalidated with If-None-Match; hashing every body for an ETag costs CPU for nothing.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', opts.trustProxy ?? false);
  app.use(requestId());
  if (opts.metrics || opts.tracing) app.use(serverTelemetry({ metrics: opts.metrics ?? noMetrics, tracing: opts.tracing ?? false }));
  app.use(accessLog(log));
  if (opts.recentErrors) app.use(serverErrors(opts.recentErrors, serviceOfPath(services)));
  app.use(cors(opts.corsOrigins ?? [], opts.webOrigins));
  app.get('/healthz', (_req, res) => void res.json({ msg: 'ok' }));
  app.all('/healthz', () => {
    throw new MethodNotAllowed(['GET', 'HEAD']);
  });
  // Whether a load balancer should send this process requests: its stores reachable, its indexes loaded, not stopping.
  app.get('/readyz', (_req, res, next) => {
    (opts.readiness?.() ?? Promise.resolve({ ready: true, checks: {} })).then((r) => {
      res.setHeader('cache-control', 'no-store');
      res.status(r.ready ? 200 : 503).json({ status: r.ready ? 'ready' : 'not ready', checks: r.checks });
    }, next);
  });
  app.all('/readyz', () => {
    throw new MethodNotAllowed(['GET', 'HEAD']);
  });
  const index = services.map((s) => ({ title: s.title, prefix: s.prefix, openapi: `${s.prefix}/openapi.json`, docs: `${s.prefix}/docs` }));
  app.get('/', (_req, res) => void res.json({ services: index, graphql: opts.extra?.length ? '/graphql' : undefined }));
  app.get(`${DOCS_ASSETS_PATH}/docs-init.js`, (_req, res) => void res.type('js').send(docsInitScript));
  app.use(DOCS_ASSETS_PATH, docsAssets());
  for (const svc of services) {
    app.use(
      svc.prefix,
      serviceRouter(svc, {
        log,
        bodyLimitBytes: opts.bodyLimitBytes ?? 1_048_576,
        verifier: opts.verifier,
        publicUrl: opts.publicUrl,
        heartbeatMs: opts.heartbeatMs,
      }),
    );
  }
  for (const { path, router } of opts.extra ?? []) app.use(path, router);
  app.use(() => {
    throw new NotFound('Not Found');
  });
  app.use(httpErrors(log));
  return app;
}

/** The service a request's path belongs to, by its prefix: `graph` for the graph, `platform` for the rest (/readyz, the console). */
function serviceOfPath(services: readonly RestService[]): (path: string) => string {
  return (path) => {
    const svc = services.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`));
    if (svc) return svc.name ?? svc.title;
    return path === '/graphql' ? 'graph' : 'platform';
  };
}
