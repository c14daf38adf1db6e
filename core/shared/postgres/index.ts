export { openPool, type PgPool, type PoolOptions } from './pool';
export { migrate, DatabaseTooNew } from './migrate';
export { transaction } from './transaction';
