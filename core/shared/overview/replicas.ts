import type { ServerError } from '../telemetry/recent-errors';

/**
 * The replicas seen: every process serving the platform (each worker of WORKERS, each replica on
 * another host) writes its row every HEARTBEAT_SECONDS to where the platform keeps shared state
 * (PostgreSQL's `platform_replicas` with DATABASE_URL, else the data directory's `replicas.db`,
 * which the workers of one host share), with its recent errors. One not seen for three of its
 * heartbeats is gone; rows not seen for a day are deleted.
 */
export interface ReplicaRow {
  /** A new id at each start. */
  id: string;
  host: string;
  pid: number;
  /** Its worker number among WORKERS processes (1, 2, ...); 0 for a process alone. */
  worker: number;
  version: string;
  /** Epoch milliseconds. */
  startedAt: number;
  lastSeen: number;
  /** Its heartbeat interval, in milliseconds: when it counts as gone is its own. */
  everyMs: number;
  /** What it serves: service names, and `gateway` when it serves the graph. */
  services: string[];
  /** Its recent errors as of its last heartbeat, newest first. */
  errors: ServerError[];
}

/** Where the rows are kept: one per process, replaced at each heartbeat. */
export interface ReplicaStore {
  /** Writes a replica's row, replacing the one of the same id. */
  put(row: ReplicaRow): Promise<void>;
  /** Every row, in no particular order. */
  list(): Promise<ReplicaRow[]>;
  /** Deletes the rows last seen before `before` (epoch ms); how many. */
  prune(before: number): Promise<number>;
  close(): void | Promise<void>;
}

/** A replica not seen for this many of its heartbeats is gone. */
export const GONE_AFTER_BEATS = 3;
/** Rows not seen for this long are deleted. */
export const KEEP_MS = 86_400_000;

export const isLive = (row: Pick<ReplicaRow, 'lastSeen' | 'everyMs'>, now: number): boolean =>
  now - row.lastSeen <= GONE_AFTER_BEATS * row.everyMs;

/** Rows are read from shared stores other versions may write: anything malformed in one is dropped, not thrown. */
export function rowFrom(v: {
  id: string;
  host: string;
  pid: number | string;
  worker: number | string;
  version: string;
  started_at: number | string;
  last_seen: number | string;
  every_ms: number | string;
  services: string;
  errors: string;
}): ReplicaRow {
  const parse = <T>(text: string, fallback: T): T => {
    try {
      const out = JSON.parse(text) as unknown;
      return Array.isArray(out) ? (out as T) : fallback;
    } catch {
      return fallback;
    }
  };
  return {
    id: v.id,
    host: v.host,
    pid: Number(v.pid),
    worker: Number(v.worker),
    version: v.version,
    startedAt: Number(v.started_at),
    lastSeen: Number(v.last_seen),
    everyMs: Number(v.every_ms),
    services: parse<string[]>(v.services, []).filter((s) => typeof s === 'string'),
    errors: parse<ServerError[]>(v.errors, []).filter((e) => e && typeof e === 'object' && typeof e.at === 'number'),
  };
}

/** A row's columns, in the order the SQL adapters write them. */
export const rowValues = (r: ReplicaRow) => [
  r.id,
  r.host,
  r.pid,
  r.worker,
  r.version,
  r.startedAt,
  r.lastSeen,
  r.everyMs,
  JSON.stringify(r.services),
  JSON.stringify(r.errors),
];
