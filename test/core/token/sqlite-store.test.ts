import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteTokenStore } from '../../../core/token/sqlite';
import { testClock } from '../../shared/helpers';
import { tokenStoreContract } from './store-contracts';

const dir = mkdtempSync(join(tmpdir(), 'token-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

// Two handles on one file: two worker processes sharing token.db. Every store is a new file.
tokenStoreContract('SQLite (token.db)', async () => {
  const file = join(dir, `token-${n++}.db`);
  const [one, two] = [sqliteTokenStore(file), sqliteTokenStore(file)];
  const clock = testClock();
  return {
    one,
    two,
    now: clock.now,
    advance: async (ms: number) => clock.advance(ms),
    close: async () => {
      await one.close();
      await two.close();
    },
  };
});
