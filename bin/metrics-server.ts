import { createServer, type Server } from 'node:http';
import { ConfigError, type Config } from '../core/shared/config';

/** What /metrics answers: this process's registry, or the primary's aggregate of its workers'. */
export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

/**
 * The management port (METRICS_PORT on METRICS_HOST, HOST's by default): GET /metrics in
 * Prometheus's text format, nothing else. It is a port of its own so the figures never reach the
 * public one. A port already taken stops start-up with a message naming the variable when
 * METRICS_PORT was set; the default port taken (a second process on one host, a newcomer's parts
 * served apart) gives a warning and no metrics instead, so the platform still starts.
 */
export async function serveMetrics(config: Config, source: MetricsSource, warn: (line: string) => void): Promise<Server | undefined> {
  try {
    return await listen(config, source);
  } catch (err) {
    if (config.metricsPortSet || !(err instanceof ConfigError)) throw err;
    warn(
      `metrics not served: the default METRICS_PORT ${config.METRICS_PORT} is taken (another process on this host?); set METRICS_PORT to a free port, or 0`,
    );
    return undefined;
  }
}

/**
 * Scrapes that arrive while one is being gathered share it: gathering asks every worker to
 * serialize its registry, which holds their event loops, so a flood of scrapes must not multiply it.
 */
export function coalesced(source: MetricsSource): MetricsSource {
  let gathering: ReturnType<MetricsSource> | undefined;
  return () =>
    (gathering ??= source().finally(() => {
      gathering = undefined;
    }));
}

async function listen(config: Config, gather: MetricsSource): Promise<Server> {
  const source = coalesced(gather);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method Not Allowed\n');
      return;
    }
    source().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  const host = config.METRICS_HOST ?? config.HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          err.code === 'EADDRINUSE'
            ? `METRICS_PORT ${config.METRICS_PORT} on ${host} is taken: set METRICS_PORT to a free port (each process on a host needs its own), or 0 to turn metrics off`
            : `METRICS_PORT ${config.METRICS_PORT} on ${host}: ${err.message}`,
        ),
      ),
    );
    server.listen(config.METRICS_PORT, host, () => resolve());
  });
  return server;
}
