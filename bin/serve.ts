import cluster from 'node:cluster';
import pino from 'pino';
import type { Config } from '../core/shared/config';
import { SERVICES } from '../services/registry';
import { runBootstrap, type BootstrapResult } from './bootstrap';
import { runPrimary, workerId, type WorkerMessage } from './cluster';
import { secureDataDir } from './data-dir';
import { closeAll, sharedDeps } from './deps';
import { serveMetrics, type MetricsSource } from './metrics-server';

const promClient = () => require('prom-client') as typeof import('prom-client');

// Loaded on use, so admin commands start fast without the GraphQL stack.
const lazyStart = () => require('./start') as typeof import('./start');

const out = (line = '') => process.stdout.write(`${line}\n`);
const warn = (line: string) => process.stderr.write(`platform: ${line}\n`);

/** Start-up notes: where to go, and the first start's credentials (secrets only ever to a terminal). */
function banner(config: Config, role: string, url: string, boot: BootstrapResult | undefined, tightened: string[], metricsServed: boolean) {
  const workers = config.WORKERS > 1 ? ` (${config.WORKERS} worker processes)` : '';
  out(`platform (${role}) listening on ${url}${workers}`);
  if (metricsServed) out(`  Metrics:    http://${config.METRICS_HOST ?? config.HOST}:${config.METRICS_PORT}/metrics (Prometheus)`);
  for (const m of lazyStart().servedBy(role, SERVICES)) out(`  ${m.title}: ${url}${m.prefix}/docs`);
  if (role === 'all' || role === 'gateway') out(`  GraphQL:    ${url}/graphql (Apollo Sandbox; offline GraphiQL at ${url}/graphiql)`);
  for (const t of tightened) out(`  data directory permissions tightened: ${t}`);
  if (boot?.joined) {
    // Replicas on one database: the first one's realm, demo accounts and key serve them all; only its file holds their secrets.
    out(`  credentials: ${boot.file} has the ids of the demo accounts another replica made on this database;`);
    out("               their secrets are in that replica's bootstrap.json (docs/replicas.md)");
  } else if (boot?.created) {
    out(
      `\nFirst start: the default realm, a demo client, a demo user and a platform administrator are ready; their credentials are in ${boot.file} (mode 0600).`,
    );
    // Standard output is the log in a container: secrets go only to a person at a terminal.
    if (process.stdout.isTTY) out(`Shown once here:\n${JSON.stringify(boot.values, null, 2)}`);
    // `platform` is on PATH only after `npm link`; npm finds it from the project folder.
    else out(`Print them (from the project folder) with: npm run -s platform -- credentials --data-dir ${config.PLATFORM_DATA_DIR}`);
    out();
  } else if (boot) out(`  credentials: ${boot.file}`);
  out('Ready. Ctrl-C stops.');
}

/** The primary's one-time work before forking: data directory, first-start bootstrap. */
async function prepare(config: Config, role: string) {
  const tightened = secureDataDir(config.PLATFORM_DATA_DIR);
  if (role !== 'all') return { tightened, boot: undefined };
  const platform = sharedDeps(config, SERVICES, pino({ level: 'silent' }));
  // Opened as the CLI opens them (durable writes, no caches, threads or index warm-up): the primary serves nothing.
  const opened = await platform.open(SERVICES, { admin: true });
  try {
    return { tightened, boot: await runBootstrap(config.PLATFORM_DATA_DIR, opened, platform.bootstrapScope()) };
  } finally {
    await closeAll(opened);
    await platform.close();
  }
}

/** `platform start` / `platform serve <role>`: one process, or WORKERS processes on one port. */
export async function serve(config: Config, role: string): Promise<void> {
  const { startPlatform } = lazyStart();
  if (cluster.isWorker) {
    const running = await startPlatform(config, { role, bootstrap: false, jobs: workerId() === 1 });
    // The primary asks every worker for its figures on each scrape, and adds them up.
    if (running.metrics.registry) {
      const { AggregatorRegistry } = promClient();
      AggregatorRegistry.setRegistries([running.metrics.registry]);
      // Constructing one is what makes a worker answer the primary's requests.
      void new AggregatorRegistry();
    }
    process.send?.({ ready: { url: running.url } } satisfies WorkerMessage);
    // A terminal's Ctrl-C reaches the workers too, beside the primary's SIGTERM: one stop each.
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void running.close(config.SHUTDOWN_GRACE_SECONDS * 1000).then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }
  if (config.WORKERS > 1) {
    const { tightened, boot } = await prepare(config, role);
    let metrics: unknown;
    if (config.METRICS_PORT > 0) {
      const aggregate = new (promClient().AggregatorRegistry)();
      metrics = await serveMetrics(
        config,
        async () => ({ contentType: aggregate.contentType, body: await aggregate.clusterMetrics() }),
        warn,
      );
    }
    runPrimary(
      config.WORKERS,
      config.SHUTDOWN_GRACE_SECONDS * 1000,
      (url) => banner(config, role, url, boot, tightened, !!metrics),
      (why) => {
        process.stderr.write(`platform: ${why}\n`);
        process.exit(1);
      },
    );
    return;
  }
  const running = await startPlatform(config, { role });
  const registry = running.metrics.registry;
  const metrics =
    registry &&
    (await serveMetrics(
      config,
      (async () => ({ contentType: registry.contentType, body: await registry.metrics() })) satisfies MetricsSource,
      warn,
    ).catch(async (err: unknown) => {
      await running.close();
      throw err;
    }));
  banner(config, role, running.url, running.bootstrap, running.tightened, !!metrics);
  // Each signal may come twice (the process group's, and npm's forwarded copy): one stop.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    metrics?.close();
    void running.close(config.SHUTDOWN_GRACE_SECONDS * 1000).then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
