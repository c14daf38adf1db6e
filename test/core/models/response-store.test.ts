import { sqliteResponseStore } from '../../../core/models/sqlite';
import { twoConnections } from './models-db';
import { responseStoreContract } from './store-contracts-responses';

responseStoreContract('SQLite (models.db)', async () => twoConnections((db) => sqliteResponseStore(db)));
