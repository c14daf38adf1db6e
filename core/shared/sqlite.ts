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
  // First: every later step may wait for another process opening the same file at the same moment.
  // Administrative commands (durable) wait longer for the server's or each other's writes than fail.
  const busyMs = durable ? 60_000 : 5000;
  db.pragma(`busy_timeout = ${busyMs}`);
  enterWal(db, busyMs);
  db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
  // Fewer, larger checkpoints: a page written by many commits is copied back once (each checkpoint
  // also waits for the disk). The WAL is cut back to 64 MiB after each.
  db.pragma('wal_autocheckpoint = 8000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/**
 * Switches a file to WAL. On a new file opened by several processes at once, SQLite may refuse the
 * switch with SQLITE_BUSY at once, without waiting on the busy timeout (it would deadlock otherwise):
 * then it is tried again, a few milliseconds later, until one process has made it (the mode is kept
 * in the file) or the busy timeout has passed.
 */
function enterWal(db: Db, busyMs: number): void {
  const deadline = Date.now() + busyMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      Atomics.wait(PAUSE, 0, 0, 5 + Math.floor(Math.random() * 10));
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

const userVersion = (db: Db) => db.pragma('user_version', { simple: true }) as number;

/**
 * Applies the migrations past the file's `user_version`, in one IMMEDIATE transaction that reads
 * the version again once it holds the write lock: processes opening a new file at the same moment
 * (parallel `platform ingest` runs) apply each migration once, the others wait and find it done.
 */
function migrate(db: Db, migrations: string[]): void {
  if (userVersion(db) >= migrations.length) return;
  db.transaction(() => {
    const current = userVersion(db);
    migrations.slice(current).forEach((sql, i) => {
      db.exec(sql);
      db.pragma(`user_version = ${current + i + 1}`);
    });
  }).immediate();
}

export type Row = Record<string, unknown>;

/**
 * Prepared-statement helpers every SQLite adapter uses: one row, many rows, a write's change count.
 * Statements are prepared once per SQL text, so helpers may be called inline.
 */
export function statements(db: Db) {
  const cache = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare(sql)));
    return st;
  };
  return {
    one: <T>(sql: string, map: (r: Row) => T) => {
      const st = prepared(sql);
      return (...args: unknown[]): T | undefined => {
        const r = st.get(...args) as Row | undefined;
        return r ? map(r) : undefined;
      };
    },
    many: <T>(sql: string, map: (r: Row) => T) => {
      const st = prepared(sql);
      return (...args: unknown[]): T[] => (st.all(...args) as Row[]).map(map);
    },
    run: (sql: string) => {
      const st = prepared(sql);
      return (...args: unknown[]): number => st.run(...args).changes;
    },
  };
}

export const toJson = (v: unknown): string => JSON.stringify(v);
export const fromJson = <T>(s: string): T => JSON.parse(s) as T;

/**
 * Group commit: rows written during one turn of the event loop go to the disk in one transaction,
 * and each caller's promise settles when its row is committed (never before: nothing acknowledged
 * is lost). A commit costs the same for one row or fifty, and SQLite's WAL grows by the pages a
 * transaction touches, so under load this turns many small commits (and their checkpoints) into
 * few.
 */
export function groupCommit<T>(
  db: Db,
  writeOne: (item: T) => void,
  opts: { delayMs?: number } = {},
): ((item: T) => Promise<void>) & { flush(): void } {
  let pending: { item: T; resolve(): void; reject(err: unknown): void }[] = [];
  const writeAll = db.transaction((items: T[]) => items.forEach(writeOne));
  const flush = () => {
    if (!pending.length) return;
    const batch = pending;
    pending = [];
    try {
      writeAll(batch.map((p) => p.item));
      batch.forEach((p) => p.resolve());
    } catch (err) {
      batch.forEach((p) => p.reject(err));
    }
  };
  // With a delay, rows gather for that long (one commit for many calls in a row, not one each).
  const schedule = opts.delayMs ? () => setTimeout(flush, opts.delayMs).unref() : () => setImmediate(flush);
  const write = (item: T) =>
    new Promise<void>((resolve, reject) => {
      if (pending.length === 0) schedule();
      pending.push({ item, resolve, reject });
    });
  // Before the database closes: what is queued is written now, not lost.
  return Object.assign(write, { flush });
}

/**
 * Prepared statements for SQL whose text varies with the request (one placeholder per filter
 * value): the `max` most recently used are kept, so a stream of odd shapes cannot grow memory.
 */
export function preparedLru(db: Db, max = 256) {
  const cache = new Map<string, Database.Statement>();
  return (sql: string): Database.Statement => {
    let st = cache.get(sql);
    if (st) cache.delete(sql);
    else st = db.prepare(sql);
    cache.set(sql, st);
    if (cache.size > max) cache.delete(cache.keys().next().value!);
    return st;
  };
}
