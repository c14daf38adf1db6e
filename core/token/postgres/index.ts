/** The token service's state in PostgreSQL (DATABASE_URL), shared by every replica. */
export { TOKEN_PG_MIGRATIONS } from './schema';
export { pgTokenStore } from './store';
export { pgFailureCounter } from './failures';
