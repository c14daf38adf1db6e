/** The model gateway's keys, usage and stored responses in PostgreSQL (DATABASE_URL), shared by every replica. */
export { MODELS_PG_MIGRATIONS } from './schema';
export { pgKeyStore } from './keys';
export { pgUsageStore } from './usage';
export { pgResponseStore } from './responses';
