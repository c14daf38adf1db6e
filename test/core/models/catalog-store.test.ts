import { MODELS_PG_MIGRATIONS, pgCatalogStore } from '../../../core/models/postgres';
import { sqliteCatalogStore } from '../../../core/models/sqlite';
import { describePg, sharedTestDatabase } from '../../shared/postgres';
import { twoConnections } from './models-db';
import { catalogStoreContract } from './store-contracts-catalog';

/** The catalog's run-time changes: models.db (two workers) and PostgreSQL (two replicas, with DATABASE_URL) pass one contract. */
catalogStoreContract('SQLite', async () => twoConnections((db) => sqliteCatalogStore(db)));

describePg('the catalog store on PostgreSQL', () => {
  const open = sharedTestDatabase([{ scope: 'models', sql: MODELS_PG_MIGRATIONS }]);
  catalogStoreContract('PostgreSQL', () => open((pool) => pgCatalogStore(pool)));
});
