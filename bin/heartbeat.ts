import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../core/shared/clock';
import type { Config } from '../core/shared/config';
import { startHeartbeats, type Heartbeats } from '../core/shared/overview/heartbeat';
import type { ReplicaStore } from '../core/shared/overview/replicas';
import type { PgPool } from '../core/shared/postgres';
import type { RecentErrors } from '../core/shared/telemetry/recent-errors';
import { workerId } from './cluster';

// Loaded only when configured, as bin/audit.ts loads its stores.
const postgres = () => require('../core/shared/postgres') as typeof import('../core/shared/postgres');
const pgReplicas = () => require('../core/shared/overview/postgres-replicas') as typeof import('../core/shared/overview/postgres-replicas');
const sqliteReplicas = () => require('../core/shared/overview/sqlite-replicas') as typeof import('../core/shared/overview/sqlite-replicas');

/** The platform's version: its package.json's (from the sources or from dist/). */
export function platformVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
    if (dirname(dir) === dir) return 'unknown';
  }
}

/**
 * A store opened on first use, and opened again on the next use after a failure: a process whose
 * database is away at start still beats once it is back.
 */
function lazyStore(open: () => Promise<ReplicaStore>): ReplicaStore & { opened(): ReplicaStore | undefined } {
  let store: Promise<ReplicaStore> | undefined;
  let done: ReplicaStore | undefined;
  const ready = () =>
    (store ??= open().then(
      (s) => (done = s),
      (err: unknown) => {
        store = undefined;
        throw err;
      },
    ));
  return {
    put: async (row) => (await ready()).put(row),
    list: async () => (await ready()).list(),
    prune: async (before) => (await ready()).prune(before),
    close: () => done?.close(),
    opened: () => done,
  };
}

/**
 * Where this process writes its heartbeat and reads everyone's: PostgreSQL's `platform_replicas`
 * with DATABASE_URL (every replica on every host; a process that keeps nothing else there, the
 * gateway or the chat proxy alone, opens one connection of its own for it), else the data
 * directory's `replicas.db` (the workers of one host). Redis is not used: replicas on several hosts
 * share DATABASE_URL (docs/replicas.md), and one host shares its data directory.
 */
export function openReplicaStore(config: Config, pool: PgPool | undefined, log: Logger): { store: ReplicaStore; close(): Promise<void> } {
  const url = config.DATABASE_URL;
  if (!url) {
    const store = sqliteReplicas().openSqliteReplicas(join(config.PLATFORM_DATA_DIR, 'replicas.db'));
    return { store, close: async () => store.close() };
  }
  const own = pool
    ? undefined
    : postgres().openPool(url, {
        max: 1,
        onIdleError: (err) => log.warn({ err: err.message }, 'heartbeat: a pooled connection failed; the next beat opens a new one'),
      });
  const store = lazyStore(() => pgReplicas().pgReplicaStore(url, pool ?? own!));
  return {
    store,
    async close() {
      await store.close();
      await own?.end().catch(() => undefined);
    },
  };
}

/** Starts this process's heartbeats: who it is, what it serves, and its recent errors, every HEARTBEAT_SECONDS. */
export async function startReplicaHeartbeats(opts: {
  config: Config;
  store: ReplicaStore;
  serves: readonly string[];
  errors: RecentErrors;
  clock: Clock;
  log: Logger;
}): Promise<Heartbeats> {
  const beats = startHeartbeats({
    store: opts.store,
    self: {
      id: randomUUID(),
      host: hostname(),
      pid: process.pid,
      worker: workerId(),
      version: platformVersion(),
      startedAt: opts.clock.now(),
      services: [...opts.serves],
    },
    errors: opts.errors,
    clock: opts.clock,
    log: opts.log,
    everyMs: opts.config.HEARTBEAT_SECONDS * 1000,
  });
  // Listed from the first request on.
  await beats.beat();
  return beats;
}
