import type { PgPool } from '../../shared/postgres';
import type { ModelsStores } from '../stores';
import { pgCatalogStore } from './catalog';
import { pgKeyStore } from './keys';
import { pgResponseStore } from './responses';
import { pgUsageStore } from './usage';
import { pgSpendCounters } from './spend-counters';
import { pgTenantBudgetStore } from './tenant-budgets';

/** The model gateway's keys, usage, stored responses and catalog changes in PostgreSQL (DATABASE_URL), shared by every replica. */
export { MODELS_PG_MIGRATIONS } from './schema';
export { pgKeyStore } from './keys';
export { pgUsageStore } from './usage';
export { pgResponseStore } from './responses';
export { pgCatalogStore } from './catalog';
export { pgSpendCounters } from './spend-counters';
export { pgTenantBudgetStore } from './tenant-budgets';

/** The ports PostgreSQL holds for every replica (migrated with MODELS_PG_MIGRATIONS); the caller owns the pool. */
export const pgModelsStores = (pool: PgPool): Pick<ModelsStores, 'keys' | 'usage' | 'responses' | 'catalog' | 'spend' | 'budgets'> => ({
  keys: pgKeyStore(pool),
  spend: pgSpendCounters(pool),
  budgets: pgTenantBudgetStore(pool),
  usage: pgUsageStore(pool),
  responses: pgResponseStore(pool),
  catalog: pgCatalogStore(pool),
});
