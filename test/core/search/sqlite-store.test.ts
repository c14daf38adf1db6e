import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { searchStoreContract } from './store-contracts';

/** Two connections to one search.db in a temporary directory (two processes), removed after. */
searchStoreContract('SQLite (search.db)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'search-store-'));
  const file = join(dir, 'search.db');
  const [one, two] = [sqliteSearchStores(file), sqliteSearchStores(file)];
  return {
    one,
    two,
    close: async () => {
      await one.close();
      await two.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
