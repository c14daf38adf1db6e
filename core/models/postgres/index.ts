/** The model gateway's keys and usage in PostgreSQL (DATABASE_URL), shared by every replica. */
export { MODELS_PG_MIGRATIONS } from './schema';
export { pgKeyStore } from './keys';
export { pgUsageStore } from './usage';
