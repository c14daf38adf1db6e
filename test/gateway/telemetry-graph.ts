import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Caller } from '../../core/shared/auth/caller';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import { prometheusMetrics, type PrometheusMetrics } from '../../core/shared/telemetry/prometheus';
import { inSpan } from '../../core/shared/telemetry/tracing';
import { buildSubgraph, type Subgraph } from '../../edge/graphql/subgraph';
import type { GraphContext } from '../../edge/graphql/context';
import type { WebSocketEndpoint } from '../../edge/graphql/ws';
import { createGateway, type Gateway, type SubgraphTarget } from '../../gateway/server';
import { composeSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';
import { subgraphRouter, type SubgraphRouter } from '../../subgraphs/shared/server';

/**
 * A small federated graph for the gateway's telemetry tests, its subgraphs under the tests' control:
 * `alpha` owns the root fields (a query whose resolver starts a span of its own, slow when asked, one that fails, a
 * mutation, and `ticks`: a subscription of `count` items, opened after `delayMs`, that, with `hold`,
 * stays open after them until it is ended); `beta` adds `label` to alpha's `Item`, so queries and every subscription event
 * fetch from both. Either served in this process or each on its own server (remote).
 */
const log = pino({ level: 'silent' });

const ALPHA = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { hello(name: String): String! item(id: ID!): Item fails: String }
type Mutation { poke: Int! }
type Subscription { ticks(count: Int!, hold: Boolean, delayMs: Int): Item! }
type Item @key(fields: "id") { id: ID! }
`;
const BETA = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Item @key(fields: "id") { id: ID! label: String! }
`;

/** What the subgraphs saw: alpha's subscription streams open now and ever opened, and the traceparent of each remote request. */
export interface Seen {
  ticksOpen: number;
  ticksStarted: number;
  /** Subscriptions to ticks asked for (their resolver entered, before any delay). */
  ticksAsked: number;
  traceparents: (string | undefined)[];
}

/** `count` items, then the end, or (hold) nothing more until return(): an iterator, so return() ends it at once. */
function ticking(count: number, hold: boolean, seen: Seen): AsyncIterableIterator<{ id: string }> {
  let sent = 0;
  let over = false;
  let release: (() => void) | undefined;
  seen.ticksOpen++;
  seen.ticksStarted++;
  const end = () => {
    if (over) return;
    over = true;
    seen.ticksOpen--;
    release?.();
  };
  return {
    async next() {
      if (!over && sent < count) return { done: false, value: { id: String(++sent) } };
      if (!over && hold) await new Promise<void>((resolve) => (release = resolve));
      end();
      return { done: true, value: undefined };
    },
    async return() {
      end();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

export function subgraphs(seen: Seen): Subgraph[] {
  let pokes = 0;
  const alpha = buildSubgraph(
    'alpha',
    ALPHA,
    {
      Query: {
        // `slow` answers after 300 ms: identical queries then surely meet in flight.
        hello: (_: unknown, { name }: { name?: string }, ctx: GraphContext) =>
          inSpan(ctx.trace, 'alpha work', {}, async () => {
            if (name === 'slow') await new Promise((resolve) => setTimeout(resolve, 300));
            return `hello ${name ?? 'world'}`;
          }),
        item: (_: unknown, { id }: { id: string }) => ({ id }),
        fails: () => {
          throw new Error('alpha failed');
        },
      },
      Mutation: { poke: () => ++pokes },
      Subscription: {
        ticks: {
          subscribe: (_: unknown, { count, hold, delayMs }: { count: number; hold?: boolean; delayMs?: number }, ctx: GraphContext) =>
            inSpan(ctx.trace, 'alpha ticks', {}, async () => {
              seen.ticksAsked++;
              if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
              return ticking(count, hold === true, seen);
            }),
          resolve: (item: { id: string }) => item,
        },
      },
    },
    log,
  );
  const beta = buildSubgraph(
    'beta',
    BETA,
    {
      Item: {
        __resolveReference: ({ id }: { id: string }, ctx: GraphContext) =>
          inSpan(ctx.trace, 'beta work', {}, async () => ({ id, label: `item ${id}` })),
      },
    },
    log,
  );
  return [alpha, beta];
}

export const supergraph = (): string =>
  composeSupergraph([
    { name: 'alpha', sdl: ALPHA },
    { name: 'beta', sdl: BETA },
  ]);

/** A verifier that takes any bearer token as its own caller (single connection mode's owner). */
const anyBearer = {
  authenticate: async (header: string | undefined) => {
    if (!header?.startsWith('Bearer ')) throw new Error('no bearer');
    return { realm: 'test', subject: header.slice(7) } as unknown as Caller;
  },
} as unknown as TokenVerifier;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface TelemetryGraph {
  url: string;
  metrics: PrometheusMetrics;
  seen: Seen;
  gateway: Gateway;
  /** A metric's exposition text ('' when it has no series yet). */
  metric(name: string): Promise<string>;
  /** The sum of a metric's series that have these labels (a histogram's `<name>_count` or `_sum`), 0 when none. */
  value(name: string, labels: Record<string, string>): Promise<number>;
  /** Connections open to the gateway's server now (upgraded ones too). */
  connections(): Promise<number>;
  /** Stops the gateway and the servers. */
  stop(): Promise<void>;
}

/** The gateway over these subgraphs, on a server of its own with graphql-ws, metrics (and tracing when asked) on. */
export async function telemetryGraph(opts: { remote?: boolean; tracing?: boolean; keepAliveMs?: number } = {}): Promise<TelemetryGraph> {
  const seen: Seen = { ticksOpen: 0, ticksStarted: 0, ticksAsked: 0, traceparents: [] };
  const metrics = prometheusMetrics({ maxTenants: 10 });
  const remotes: { server: Server; router: SubgraphRouter; ws?: WebSocketEndpoint }[] = [];
  const targets: Record<string, SubgraphTarget> = {};
  for (const s of subgraphs(seen)) {
    if (!opts.remote) {
      targets[s.name] = { schema: s.schema };
      continue;
    }
    // Served alone as `platform serve <service>` serves one; its own registry, so the gateway's figures stay apart.
    const router = await subgraphRouter(s, log);
    const app = createRestApp([], {
      log,
      extra: [{ path: '/', router: router.router }],
      tracing: opts.tracing,
      metrics: opts.tracing ? prometheusMetrics({ maxTenants: 1 }) : undefined,
    });
    const server = createServer((req, res) => {
      seen.traceparents.push(req.headers.traceparent as string | undefined);
      app(req, res);
    });
    const ws = router.webSocket?.(server);
    targets[s.name] = { url: `${await listen(server)}/graphql` };
    remotes.push({ server, router, ws });
  }
  const gateway = await createGateway({
    supergraphSdl: supergraph(),
    targets,
    log,
    metrics,
    verifier: anyBearer,
    keepAliveMs: opts.keepAliveMs,
  });
  const app = createRestApp([], { log, extra: [{ path: '/', router: gateway.router }], metrics, tracing: opts.tracing });
  const server = createServer(app);
  const ws = gateway.webSocket!(server);
  const url = await listen(server);
  const metric = async (name: string) => (metrics.registry.getSingleMetric(name) ? metrics.registry.getSingleMetricAsString(name) : '');
  return {
    url,
    metrics,
    seen,
    gateway,
    metric,
    connections: () => new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    async value(name, labels) {
      // A histogram's series by their own name: `<name>_count`, `_sum`.
      const base = metrics.registry.getSingleMetric(name) ? name : name.replace(/_(count|sum)$/, '');
      const m = metrics.registry.getSingleMetric(base);
      if (!m) return 0;
      const { values } = await m.get();
      const wanted = Object.entries(labels);
      return values
        .filter(
          (v) =>
            ((v as { metricName?: string }).metricName ?? base) === name &&
            wanted.every(([k, x]) => String((v.labels as Record<string, unknown>)[k]) === x),
        )
        .reduce((sum, v) => sum + v.value, 0);
    },
    async stop() {
      await ws.close();
      await gateway.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const r of remotes) {
        await r.ws?.close();
        await r.router.stop();
        r.server.closeAllConnections();
        await new Promise((resolve) => r.server.close(resolve));
      }
    },
  };
}

/** Polls `read` until it gives `want` (or jest's timeout ends the test). */
export async function until<T>(read: () => Promise<T>, want: T): Promise<void> {
  for (;;) {
    if ((await read()) === want) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
