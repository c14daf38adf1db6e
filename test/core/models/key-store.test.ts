import { sqliteKeyStore } from '../../../core/models/sqlite';
import { twoConnections } from './models-db';
import { keyStoreContract } from './store-contracts-keys';

keyStoreContract('SQLite (models.db)', async () => twoConnections((db) => sqliteKeyStore(db)));
