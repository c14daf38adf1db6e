import type { TokenStores } from '../ports';
import { sqliteTokenStore } from './store';

/** The token service's embedded store: one SQLite file (`token.db`), shared by a machine's worker processes. */
export { sqliteTokenStore } from './store';

/** Every port of the token service in one SQLite file (or `:memory:`); `durable`: every commit waits for the disk. */
export function sqliteTokenStores(file: string, opts: { durable?: boolean } = {}): TokenStores {
  const store = sqliteTokenStore(file, opts);
  return { store, throttles: store.failures };
}
