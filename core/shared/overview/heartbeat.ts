import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { RecentErrors } from '../telemetry/recent-errors';
import { KEEP_MS, type ReplicaRow, type ReplicaStore } from './replicas';

/** What a process says of itself in every heartbeat. */
export type ReplicaSelf = Omit<ReplicaRow, 'lastSeen' | 'errors' | 'everyMs'>;

export interface Heartbeats {
  /** This process's row as of now (its latest errors), as a heartbeat would write it. */
  current(this: void): ReplicaRow;
  /** Writes the row now; a store error is logged, never thrown (serving goes on without it). */
  beat(this: void): Promise<void>;
  stop(this: void): void;
}

/** Rows older than a day are deleted this often, by every process (the same statement: running it twice is harmless). */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Writes this process's row now and every `everyMs` (unref'd: it never keeps a process alive),
 * and deletes rows not seen for a day at the first beat and hourly.
 */
export function startHeartbeats(opts: {
  store: ReplicaStore;
  self: ReplicaSelf;
  errors: RecentErrors;
  clock: Clock;
  log: Logger;
  everyMs: number;
}): Heartbeats {
  const { store, self, errors, clock, log, everyMs } = opts;
  let prunedAt: number | undefined;
  let failing = false;
  const current = (): ReplicaRow => ({ ...self, everyMs, lastSeen: clock.now(), errors: errors.list() });
  const beat = async () => {
    const row = current();
    try {
      await store.put(row);
      if (prunedAt === undefined || row.lastSeen - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = row.lastSeen;
        await store.prune(row.lastSeen - KEEP_MS);
      }
      if (failing) log.info('heartbeat: written again');
      failing = false;
    } catch (err) {
      // Once per outage, not every few seconds.
      if (!failing) log.warn({ err: (err as Error).message }, 'heartbeat: the replicas store could not be written; retrying');
      failing = true;
    }
  };
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  return { current, beat, stop: () => clearInterval(timer) };
}
