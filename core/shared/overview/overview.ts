import { requirePlatform, type Admin } from '../admin/access';
import type { Clock } from '../clock';
import { BadRequest } from '../errors';
import type { ServerError } from '../telemetry/recent-errors';
import { isLive, type ReplicaRow, type ReplicaStore } from './replicas';
import { checkServices, type ServiceProbe, type ServiceStatus } from './services';

/**
 * What the platform knows about itself, as the process serving the graph sees it (the console's
 * overview, the `platform` subgraph). Who reads what (docs/admin.md):
 * - any administrator: the version, this process's start, and each service's health and readiness;
 * - a realm administrator without the remote services' addresses (the deployment's inside);
 * - only a platform administrator: the replicas and their recent errors, which are every realm's.
 */
export interface ReplicaView {
  id: string;
  host: string;
  pid: number;
  worker: number;
  version: string;
  startedAt: number;
  lastSeen: number;
  services: string[];
  /** Seen within its last three heartbeats. */
  live: boolean;
  /** The process answering. */
  current: boolean;
}

/** An error as the overview lists it: which replica had it. */
export interface ErrorView extends ServerError {
  replica: string;
  host: string;
  pid: number;
  worker: number;
}

export interface PlatformOverview {
  about(admin: Admin): { version: string; startedAt: number };
  services(admin: Admin): Promise<ServiceStatus[]>;
  replicas(admin: Admin): Promise<ReplicaView[]>;
  /** The replicas' errors, newest first: the first `first` (1 to 200) and how many there are. */
  errors(admin: Admin, first?: number): Promise<{ total: number; items: ErrorView[] }>;
}

export const MAX_ERRORS_PAGE = 200;
/** Services are checked at most this often: an auto-refreshing page, or many, cost one round of checks. */
const CHECK_REUSE_MS = 1000;

export function createPlatformOverview(deps: {
  version: string;
  startedAt: number;
  probes: readonly ServiceProbe[];
  store: ReplicaStore;
  /** This process's row as of now: it is shown fresh, not as its last heartbeat wrote it. */
  self(): ReplicaRow;
  clock: Clock;
  /** How long each health or readiness check may take. */
  checkTimeoutMs: number;
}): PlatformOverview {
  let last: { at: number; checks: Promise<ServiceStatus[]> } | undefined;
  const checks = () => {
    const now = deps.clock.now();
    if (!last || now - last.at > CHECK_REUSE_MS) last = { at: now, checks: checkServices(deps.probes, deps.checkTimeoutMs) };
    return last.checks;
  };
  const rows = async (): Promise<ReplicaRow[]> => {
    const self = deps.self();
    return [self, ...(await deps.store.list()).filter((r) => r.id !== self.id)];
  };
  return {
    about: () => ({ version: deps.version, startedAt: deps.startedAt }),
    async services(admin) {
      const all = await checks();
      return admin.platform ? all : all.map(({ url: _url, ...rest }) => rest);
    },
    async replicas(admin) {
      requirePlatform(admin);
      const now = deps.clock.now();
      const self = deps.self().id;
      return (await rows())
        .map((r): ReplicaView => ({
          id: r.id,
          host: r.host,
          pid: r.pid,
          worker: r.worker,
          version: r.version,
          startedAt: r.startedAt,
          lastSeen: r.lastSeen,
          services: r.services,
          live: isLive(r, now),
          current: r.id === self,
        }))
        .sort(
          (a, b) => Number(b.live) - Number(a.live) || a.host.localeCompare(b.host) || a.worker - b.worker || a.startedAt - b.startedAt,
        );
    },
    async errors(admin, first = 20) {
      requirePlatform(admin);
      if (!Number.isInteger(first) || first < 1 || first > MAX_ERRORS_PAGE) throw new BadRequest(`first: from 1 to ${MAX_ERRORS_PAGE}`);
      const all = (await rows())
        .flatMap((r) => r.errors.map((e): ErrorView => ({ ...e, replica: r.id, host: r.host, pid: r.pid, worker: r.worker })))
        .sort((a, b) => b.at - a.at);
      return { total: all.length, items: all.slice(0, first) };
    },
  };
}
