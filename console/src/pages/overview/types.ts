/** What `platformStatus` answers (schema/platform/platform.graphql), as the overview reads it. */
export interface ServiceStatus {
  name: string;
  title: string;
  location: 'IN_PROCESS' | 'REMOTE';
  url: string | null;
  healthy: boolean;
  health: string;
  ready: boolean;
  reason: string | null;
}

export interface Replica {
  id: string;
  host: string;
  pid: number;
  worker: number;
  version: string;
  startedAt: string;
  lastSeenAt: string;
  live: boolean;
  serves: string[];
  current: boolean;
}

export interface ServerError {
  at: string;
  service: string;
  where: string;
  code: string;
  message: string;
  requestId: string | null;
  replica: string;
  host: string;
  pid: number;
  worker: number;
}

export interface Status {
  version: string;
  startedAt: string;
  services: ServiceStatus[];
  /** Asked of platform administrators only. */
  replicas?: Replica[] | null;
  recentErrors?: { total: number; items: ServerError[] } | null;
}
