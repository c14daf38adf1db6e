import { DateTimeResolver } from 'graphql-scalars';
import type { Admin } from '../../core/shared/admin/access';
import type { ErrorView, PlatformOverview, ReplicaView } from '../../core/shared/overview/overview';
import type { ServiceStatus } from '../../core/shared/overview/services';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';

/**
 * The `platform` subgraph (schema/platform/platform.graphql): what the platform knows about itself,
 * served by the process that runs the gateway, whichever services run elsewhere. `platformStatus`
 * establishes its caller as an administrator (anyone else: FORBIDDEN); each field asks the core
 * (core/shared/overview), which decides what that administrator may read.
 */
interface Status {
  admin: Admin;
}

const service = (s: ServiceStatus) => ({ ...s, location: s.location === 'remote' ? 'REMOTE' : 'IN_PROCESS' });
const replica = (r: ReplicaView) => ({
  ...r,
  startedAt: new Date(r.startedAt),
  lastSeenAt: new Date(r.lastSeen),
  serves: r.services,
});
const error = (e: ErrorView) => ({ ...e, at: new Date(e.at) });

export const platformResolvers = (overview: PlatformOverview, adminOf: CallOf<Admin>) => ({
  DateTime: DateTimeResolver,
  Query: {
    platformStatus: async (_: unknown, _args: unknown, graph: GraphContext): Promise<Status> => ({ admin: (await adminOf(graph)).caller }),
  },
  PlatformStatus: {
    version: ({ admin }: Status) => overview.about(admin).version,
    startedAt: ({ admin }: Status) => new Date(overview.about(admin).startedAt),
    services: async ({ admin }: Status) => (await overview.services(admin)).map(service),
    replicas: async ({ admin }: Status) => (await overview.replicas(admin)).map(replica),
    recentErrors: async ({ admin }: Status, { first }: { first?: number | null }) => {
      const page = await overview.errors(admin, first ?? undefined);
      return { total: page.total, items: page.items.map(error) };
    },
  },
});
