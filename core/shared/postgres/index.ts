export { openPool, postgresWhere, unreachable, type PgPool, type PoolOptions } from './pool';
export { migrate, migrateAt, DatabaseTooNew, MigrationFailed } from './migrate';
export { transaction } from './transaction';
export { withAdvisoryLock } from './lock';
