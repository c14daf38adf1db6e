import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../core/shared/clock';
import { openModelsDb } from '../../../core/models/sqlite';
import { testClock } from '../../shared/helpers';
import type { Opened } from './store-contracts';

type Db = ReturnType<typeof openModelsDb>;

/** Two connections to one new models.db in a temporary folder (two workers), on one test clock. */
export function twoConnections<T>(adapter: (db: Db, clock: Clock) => T): Opened<T> & { file: string; dbs: [Db, Db] } {
  const dir = mkdtempSync(join(tmpdir(), 'models-db-'));
  const file = join(dir, 'models.db');
  const clock = testClock();
  const dbs: [Db, Db] = [openModelsDb(file), openModelsDb(file)];
  return {
    file,
    dbs,
    one: adapter(dbs[0], clock),
    two: adapter(dbs[1], clock),
    now: clock.now,
    advance: async (ms) => clock.advance(ms),
    close: async () => {
      dbs.forEach((db) => db.close());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
