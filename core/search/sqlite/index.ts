import { openDatabase, type Db } from '../../shared/sqlite';
import type { SearchStores } from '../ports';
import { sqliteAdminStore } from './admin';
import { sqliteIndexFeeds } from './feeds';
import { foldLegacyCustomMetadata } from './fold-custom';
import { sqliteObjectStore } from './objects';
import { sqliteIndexQueries } from './queries';
import { SEARCH_MIGRATIONS } from './schema';

export interface SqliteSearchStore extends SearchStores {
  /** The connection, for what only SQLite has (tests that write an older version's rows). */
  db: Db;
}

/** The embedded search store: one SQLite file (or `:memory:`), shared by worker processes and `platform` commands in WAL mode. */
export function sqliteSearchStores(file: string, opts: { durable?: boolean } = {}): SqliteSearchStore {
  const db = openDatabase(file, SEARCH_MIGRATIONS, opts);
  foldLegacyCustomMetadata(db);
  // Writes of this connection: SQLite's data_version only counts the other connections' commits.
  let writes = 0;
  const wrote = () => {
    writes++;
  };
  // Prepared once: db.pragma() prepares its statement again on every call (every search asks).
  const version = db.prepare('PRAGMA data_version').pluck();
  const dataVersion = () => `${version.get() as number}.${writes}`;
  return {
    db,
    objects: sqliteObjectStore(db, wrote),
    queries: sqliteIndexQueries(db),
    feeds: sqliteIndexFeeds(db, dataVersion),
    admin: sqliteAdminStore(db, wrote),
    close: async () => {
      db.close();
    },
  };
}
