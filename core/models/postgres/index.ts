import type { PgPool } from '../../shared/postgres';
import type { ModelsStores } from '../stores';
import { pgCatalogStore } from './catalog';
import { pgKeyStore } from './keys';
import { pgResponseStore } from './responses';
import { pgUsageStore } from './usage';

/** The model gateway's keys, usage, stored responses and catalog changes in PostgreSQL (DATABASE_URL), shared by every replica. */
export { MODELS_PG_MIGRATIONS } from './schema';
export { pgKeyStore } from './keys';
export { pgUsageStore } from './usage';
export { pgResponseStore } from './responses';
export { pgCatalogStore } from './catalog';

/** The ports PostgreSQL holds for every replica (migrated with MODELS_PG_MIGRATIONS); the caller owns the pool. */
export const pgModelsStores = (pool: PgPool): Pick<ModelsStores, 'keys' | 'usage' | 'responses' | 'catalog'> => ({
  keys: pgKeyStore(pool),
  usage: pgUsageStore(pool),
  responses: pgResponseStore(pool),
  catalog: pgCatalogStore(pool),
});
