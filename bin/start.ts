import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { ConfigError, type Config } from '../core/config';
import { openTokenCore, type TokenCore } from '../core/token';
import { createGateway, type SubgraphTarget } from '../gateway/server';
import { graphiqlRouter } from '../gateway/graphiql';
import { readSupergraph, SUBGRAPHS } from '../gateway/supergraph';
import { createRestApp } from '../rest/app';
import { buildSubgraphs } from '../subgraphs';
import { subgraphRouter } from '../subgraphs/server';
import { ensureBootstrap, type Bootstrap } from './bootstrap';

/** What one process runs: everything, one service (REST + its subgraph), or the gateway alone. */
export type Role = 'all' | 'token' | 'gateway';

export interface RunningPlatform {
  url: string;
  port: number;
  server: Server;
  bootstrap?: { bootstrap: Bootstrap; created: boolean };
  close(): Promise<void>;
}

export const tokenDbPath = (config: Config) => join(config.PLATFORM_DATA_DIR, 'token.db');

export function openToken(config: Config, opts: { durable?: boolean } = {}): TokenCore {
  return openTokenCore({
    ...opts,
    file: tokenDbPath(config),
    publicUrl: config.PUBLIC_URL,
    lockout: { threshold: config.LOCKOUT_THRESHOLD, seconds: config.LOCKOUT_SECONDS },
    authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
  });
}

const PRUNE_EVERY_MS = 10 * 60_000;

/** Starts `role` on HOST:PORT as configured; the code path of `npm start` and `platform serve`. */
export async function startPlatform(config: Config, role: Role = 'all', log: Logger = pino({ level: config.LOG_LEVEL })): Promise<RunningPlatform> {
  const closers: (() => unknown)[] = [];
  const token = role === 'gateway' ? undefined : openToken(config);
  if (token) closers.push(() => token.close());

  const bootstrap = token && role === 'all' ? await ensureBootstrap(config.PLATFORM_DATA_DIR, token) : undefined;
  if (token) {
    const timer = setInterval(() => token.admin.pruneSessions(), PRUNE_EVERY_MS);
    timer.unref();
    closers.push(() => clearInterval(timer));
  }

  const services = { token: token?.service };
  const extra = [];
  if (role === 'token') {
    const [subgraph] = buildSubgraphs(services, log);
    const served = await subgraphRouter(subgraph!, log, config.BODY_LIMIT_BYTES);
    closers.push(served.stop);
    extra.push({ path: '/', router: served.router });
  } else {
    const local = Object.fromEntries(buildSubgraphs(services, log).map((s) => [s.name, { schema: s.schema }]));
    const targets: Record<string, SubgraphTarget> = { ...local };
    for (const name of SUBGRAPHS) {
      const url = name === 'token' ? config.SUBGRAPH_TOKEN_URL : undefined;
      if (url) targets[name] = { url };
      else if (!targets[name]) throw new ConfigError(`SUBGRAPH_${name.toUpperCase()}_URL is required to run the gateway without the ${name} service`);
    }
    const gateway = await createGateway({ supergraphSdl: readSupergraph(), targets, log, bodyLimitBytes: config.BODY_LIMIT_BYTES });
    closers.push(gateway.stop);
    extra.push({ path: '/', router: gateway.router }, { path: '/', router: graphiqlRouter('/graphql') });
  }

  const app = createRestApp(role === 'gateway' ? {} : services, { log, publicUrl: config.PUBLIC_URL, bodyLimitBytes: config.BODY_LIMIT_BYTES, corsOrigins: config.CORS_ORIGINS, trustProxy: config.TRUST_PROXY, extra });
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;

  return {
    url: `http://${host}:${port}`,
    port,
    server,
    bootstrap,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const close of closers.reverse()) await close();
    },
  };
}
