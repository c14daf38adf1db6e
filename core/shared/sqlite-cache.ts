import { statements, type Db } from './sqlite';

/**
 * A bounded key-value cache in one table of a SQLite file: every process that opens the file (the
 * workers of `platform start`) sees the same entries. Entries may expire; past `maxEntries` or
 * `maxBytes` (keys and values, UTF-8) the expired go first, then the oldest written, within the
 * same write transaction, so the bounds hold however many processes write. A read never writes
 * (no LRU bookkeeping, which would make every hit a write).
 */
export interface SqliteCacheOptions {
  /** A table made by `cacheTableSql` in the file's migrations. */
  table: string;
  maxEntries: number;
  maxBytes: number;
  now: () => number;
}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * The migration that makes a cache table (its shape, version 1: do not change it; a new shape is a
 * new function). A one-row table of totals, kept by triggers, makes the bounds cheap to check.
 */
export function cacheTableSql(table: string): string {
  if (!NAME.test(table)) throw new Error(`bad cache table name ${table}`);
  return `
  CREATE TABLE ${table} (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT NOT NULL, bytes INTEGER NOT NULL, expires_at INTEGER);
  CREATE INDEX ${table}_expiry ON ${table} (expires_at);
  CREATE TABLE ${table}_totals (id INTEGER PRIMARY KEY CHECK (id = 1), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
  INSERT INTO ${table}_totals VALUES (1, 0, 0);
  CREATE TRIGGER ${table}_added AFTER INSERT ON ${table} BEGIN
    UPDATE ${table}_totals SET entries = entries + 1, bytes = bytes + new.bytes;
  END;
  CREATE TRIGGER ${table}_removed AFTER DELETE ON ${table} BEGIN
    UPDATE ${table}_totals SET entries = entries - 1, bytes = bytes - old.bytes;
  END;
  `;
}

export interface SqliteCache {
  /** The value under `key`, unless it has expired. */
  get(key: string): string | undefined;
  /** Keeps `value` (for `ttlMs`, or until evicted when null); a value over `maxBytes` is not kept. */
  set(key: string, value: string, ttlMs: number | null): void;
  delete(key: string): boolean;
  /** Deletes the expired entries; returns how many. */
  sweep(): number;
  totals(): { entries: number; bytes: number };
}

export function sqliteCache(db: Db, opts: SqliteCacheOptions): SqliteCache {
  const t = opts.table;
  if (!NAME.test(t)) throw new Error(`bad cache table name ${t}`);
  const s = statements(db);
  const read = s.one(`SELECT value FROM ${t} WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)`, (r) => r.value as string);
  const remove = s.run(`DELETE FROM ${t} WHERE key = ?`);
  const insert = s.run(`INSERT INTO ${t} (key, value, bytes, expires_at) VALUES (?, ?, ?, ?)`);
  const expired = s.run(`DELETE FROM ${t} WHERE expires_at <= ?`);
  const oldest = s.run(`DELETE FROM ${t} WHERE seq = (SELECT min(seq) FROM ${t})`);
  const totals = s.one(`SELECT entries, bytes FROM ${t}_totals WHERE id = 1`, (r) => ({
    entries: r.entries as number,
    bytes: r.bytes as number,
  }));
  const over = () => {
    const n = totals()!;
    return n.entries > opts.maxEntries || n.bytes > opts.maxBytes;
  };
  // IMMEDIATE: the write lock is taken before the totals are read, so two processes never both
  // see room for their entry.
  const write = db.transaction((key: string, value: string, bytes: number, expiresAt: number | null) => {
    remove(key);
    insert(key, value, bytes, expiresAt);
    if (!over()) return;
    expired(opts.now());
    while (over()) oldest();
  });

  return {
    get: (key) => read(key, opts.now()),
    set(key, value, ttlMs) {
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
      if (bytes > opts.maxBytes) return void remove(key);
      write.immediate(key, value, bytes, ttlMs === null ? null : opts.now() + ttlMs);
    },
    delete: (key) => remove(key) > 0,
    sweep: () => expired(opts.now()),
    totals: () => totals()!,
  };
}
