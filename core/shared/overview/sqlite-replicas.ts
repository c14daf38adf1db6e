import { openDatabase } from '../sqlite';
import { rowFrom, rowValues, type ReplicaStore } from './replicas';

const MIGRATIONS = [
  `CREATE TABLE replicas (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    worker INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    every_ms INTEGER NOT NULL,
    services TEXT NOT NULL,
    errors TEXT NOT NULL
  );
  CREATE INDEX replicas_last_seen ON replicas (last_seen);`,
];

/** The data directory's `replicas.db`: the rows of every process serving from that directory (WORKERS). */
export function openSqliteReplicas(file: string): ReplicaStore {
  const db = openDatabase(file, MIGRATIONS);
  const put = db.prepare(
    `INSERT INTO replicas (id, host, pid, worker, version, started_at, last_seen, every_ms, services, errors)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, every_ms = excluded.every_ms,
       services = excluded.services, errors = excluded.errors`,
  );
  const list = db.prepare('SELECT * FROM replicas');
  const prune = db.prepare('DELETE FROM replicas WHERE last_seen < ?');
  return {
    put: async (row) => void put.run(...rowValues(row)),
    list: async () => (list.all() as Parameters<typeof rowFrom>[0][]).map(rowFrom),
    prune: async (before) => prune.run(before).changes,
    close: () => void db.close(),
  };
}
