import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

/**
 * Opens (creating when needed) one service's SQLite file: WAL so the `platform` command can write
 * while the server reads, a busy timeout instead of SQLITE_BUSY errors, owner-only permissions.
 * `:memory:` gives a private in-memory database for tests.
 *
 * `durable` makes every commit wait for the disk (synchronous=FULL), for administrative writes
 * that must survive a power loss; servers use NORMAL, which in WAL mode loses nothing on a crash
 * of the process and at most the last commits (here: sessions) on a crash of the machine.
 */
export function openDatabase(file: string, migrations: string[], opts: { durable?: boolean } = {}): Db {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const created = !existsSync(file);
    const db = new Database(file);
    if (created) chmodSync(file, 0o600);
    return prepare(db, migrations, opts.durable);
  }
  return prepare(new Database(':memory:'), migrations, opts.durable);
}

function prepare(db: Db, migrations: string[], durable = false): Db {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/** Applies, in one transaction each, the migrations past the file's `user_version`. */
function migrate(db: Db, migrations: string[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  migrations.slice(current).forEach((sql, i) => {
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${current + i + 1}`);
    })();
  });
}

export const toJson = (v: unknown): string => JSON.stringify(v);
export const fromJson = <T>(s: string): T => JSON.parse(s) as T;
