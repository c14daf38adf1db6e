import { migrateAt, type PgPool } from '../postgres';
import { rowFrom, rowValues, type ReplicaStore } from './replicas';

/** The replicas seen on PostgreSQL (scope `replicas`), run by every process that opens it and by `platform migrate`. */
export const REPLICAS_PG_MIGRATIONS = [
  `CREATE TABLE platform_replicas (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    worker INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    last_seen BIGINT NOT NULL,
    every_ms INTEGER NOT NULL,
    services TEXT NOT NULL,
    errors TEXT NOT NULL
  );
  CREATE INDEX platform_replicas_last_seen ON platform_replicas (last_seen);`,
];

/** `platform_replicas` of DATABASE_URL: every replica, on any host, writes its row there and reads everyone's. */
export async function pgReplicaStore(url: string, pool: PgPool): Promise<ReplicaStore> {
  await migrateAt(url, pool, 'replicas', REPLICAS_PG_MIGRATIONS);
  return {
    put: async (row) =>
      void (await pool.query(
        `INSERT INTO platform_replicas (id, host, pid, worker, version, started_at, last_seen, every_ms, services, errors)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, every_ms = excluded.every_ms,
           services = excluded.services, errors = excluded.errors`,
        rowValues(row),
      )),
    list: async () => (await pool.query<Parameters<typeof rowFrom>[0]>('SELECT * FROM platform_replicas')).rows.map(rowFrom),
    prune: async (before) => (await pool.query('DELETE FROM platform_replicas WHERE last_seen < $1', [before])).rowCount ?? 0,
    close: () => undefined,
  };
}
