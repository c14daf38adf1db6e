/** The token service's embedded store: one SQLite file (`token.db`), shared by a machine's worker processes. */
export { sqliteTokenStore } from './store';
