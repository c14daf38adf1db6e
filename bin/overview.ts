import type { Logger } from 'pino';
import { adminCredentials } from '../core/shared/admin/access';
import type { Heartbeats } from '../core/shared/overview/heartbeat';
import { createPlatformOverview } from '../core/shared/overview/overview';
import type { ReplicaStore } from '../core/shared/overview/replicas';
import type { ServiceProbe } from '../core/shared/overview/services';
import { describeError } from '../core/shared/telemetry/recent-errors';
import type { Clock } from '../core/shared/clock';
import type { TokenVerifier } from '../core/shared/auth/verifier';
import { callsFor } from '../edge/graphql/calls';
import { readSchemaFile } from '../edge/graphql/sdl';
import { buildSubgraph, type Subgraph } from '../edge/graphql/subgraph';
import type { SubgraphTarget } from '../gateway/server';
import { PLATFORM_SUBGRAPH } from '../gateway/supergraph';
import type { Readiness } from '../rest/shared/app';
import type { ServiceModule } from '../services/shared/module';
import { platformResolvers } from '../subgraphs/platform';
import type { Opened } from './deps';
import { platformVersion } from './heartbeat';

/** How long one health or readiness check may take before the overview says the service does not answer. */
export const CHECK_TIMEOUT_MS = 2000;

const FINE = new Set(['up', 'ready']);

/** The checks of a /readyz answer that are not fine, as one reason (`search: loading; postgres: down`). */
const notFine = (checks: Record<string, string>, skip: ReadonlySet<string> = new Set()) =>
  Object.entries(checks)
    .filter(([name, state]) => !skip.has(name) && !FINE.has(state))
    .map(([name, state]) => `${name}: ${state}`)
    .join('; ');

/** A subgraph's URL as its process's base URL: without `/graphql`, credentials, query or fragment (shown to administrators). */
export function baseUrlOf(subgraphUrl: string): string {
  const u = new URL(subgraphUrl);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  u.pathname = u.pathname.replace(/\/graphql\/?$/, '');
  return u.toString().replace(/\/+$/, '');
}

/** Why a request to another process failed: undici's `fetch failed` hides the reason in its cause. */
const failure = (err: unknown) => {
  const code = (err as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' ? `unreachable: ${code}` : describeError(err);
};

async function get(url: string, signal: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { signal, headers: { accept: 'application/json' } });
  } catch (err) {
    throw new Error(failure(err), { cause: err });
  }
}

/** What another process's /readyz says. */
async function remoteReadiness(base: string, signal: AbortSignal): Promise<{ ready: boolean; reason?: string }> {
  const res = await get(`${base}/readyz`, signal);
  if (res.ok) return { ready: true };
  const body = (await res.json().catch(() => undefined)) as { checks?: Record<string, string> } | undefined;
  const reason = body?.checks && typeof body.checks === 'object' ? notFine(body.checks) : '';
  return { ready: false, reason: reason || `/readyz answered HTTP ${res.status}` };
}

async function remoteHealth(base: string, signal: AbortSignal): Promise<void> {
  const res = await get(`${base}/healthz`, signal);
  await res.body?.cancel();
  if (!res.ok) throw new Error(`/healthz answered HTTP ${res.status}`);
}

/**
 * How the process serving the graph checks each service: as the gateway reaches it (`targets`).
 * In process, its interface's health() (or being open) and this process's /readyz answer (its own
 * check and the process-wide ones: stores, revocations, draining); remote, through its REST client
 * (or its process's /healthz) and its process's /readyz.
 */
export function serviceProbes(opts: {
  modules: readonly ServiceModule[];
  opened: readonly Opened[];
  targets: Readonly<Record<string, SubgraphTarget>>;
  readiness: () => Promise<Readiness>;
}): ServiceProbe[] {
  const names = opts.modules.map((m) => m.name);
  return opts.modules.flatMap((m): ServiceProbe[] => {
    const target = opts.targets[m.name];
    if (!target) return [];
    if ('url' in target) {
      const base = baseUrlOf(target.url);
      const client = m.health && m.client?.({ baseUrl: base });
      return [
        {
          name: m.name,
          title: m.title,
          url: base,
          health: async (signal) => void (client ? await m.health!({ client }, signal) : await remoteHealth(base, signal)),
          readiness: (signal) => remoteReadiness(base, signal),
        },
      ];
    }
    const instance = opts.opened.find((o) => o.module.name === m.name)?.instance;
    const others = new Set(names.filter((n) => n !== m.name));
    return [
      {
        name: m.name,
        title: m.title,
        health: async (signal) => void (m.health && instance ? await m.health({ instance }, signal) : undefined),
        readiness: async () => {
          const reason = notFine((await opts.readiness()).checks, others);
          return reason ? { ready: false, reason } : { ready: true };
        },
      },
    ];
  });
}

/** The `platform` subgraph of the process that runs the gateway (schema/platform/, subgraphs/platform/). */
export function platformSubgraph(opts: {
  probes: readonly ServiceProbe[];
  store: ReplicaStore;
  heartbeats: Heartbeats;
  clock: Clock;
  verifier: TokenVerifier;
  log: Logger;
}): Subgraph {
  const overview = createPlatformOverview({
    version: platformVersion(),
    startedAt: opts.heartbeats.current().startedAt,
    probes: opts.probes,
    store: opts.store,
    self: opts.heartbeats.current,
    clock: opts.clock,
    checkTimeoutMs: CHECK_TIMEOUT_MS,
  });
  // Administrators of any realm, with a token of any of the platform's audiences (as the admin API).
  const adminOf = callsFor(PLATFORM_SUBGRAPH, adminCredentials, { verifier: opts.verifier });
  return buildSubgraph(PLATFORM_SUBGRAPH, readSchemaFile('platform/platform.graphql'), platformResolvers(overview, adminOf), opts.log);
}
