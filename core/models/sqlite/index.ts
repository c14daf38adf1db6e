/** The embedded adapters of every port of the model gateway, over one models.db. */
export { openModelsDb } from './db';
export { sqliteKeyStore } from './keys';
export { sqliteUsageStore } from './usage';
export { sqliteLimitCounters } from './limit-counters';
export { sqliteAnswerStore, type SqliteAnswerStoreOptions } from './answer-store';
export { sqliteResponseStore } from './responses';
export { sqliteCatalogStore } from './catalog';
export { sqliteSpendCounters } from './spend-counters';
export { sqliteTenantBudgetStore } from './tenant-budgets';
export { sqliteModelsStores, type SqliteModelsStoresOptions } from './stores';
