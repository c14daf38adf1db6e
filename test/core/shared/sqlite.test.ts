import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '../../../core/shared/sqlite';

describe('the embedded SQLite files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-sqlite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const migrations = ['CREATE TABLE a (x INTEGER)', 'CREATE TABLE b (y TEXT)'];

  it('creates the file owner-only in an owner-only folder, in WAL mode', () => {
    const file = join(dir, 'data', 'svc.db');
    const db = openDatabase(file, migrations);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
  });

  it('applies each migration once, across reopenings, and only the new ones later', () => {
    const file = join(dir, 'migrate.db');
    openDatabase(file, migrations.slice(0, 1)).close();
    const db = openDatabase(file, migrations);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual(['a', 'b']);
    db.close();
    expect(() => openDatabase(file, migrations).close()).not.toThrow();
  });

  it('waits for the disk on every commit only when asked to be durable', () => {
    const normal = openDatabase(join(dir, 'n.db'), migrations);
    const durable = openDatabase(join(dir, 'd.db'), migrations, { durable: true });
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
    expect(durable.pragma('synchronous', { simple: true })).toBe(2);
    normal.close();
    durable.close();
  });

  it('applies each migration once when several processes open a new file at the same instant (workers)', async () => {
    const file = join(dir, 'race.db');
    const script = `
      const { openDatabase } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'dist', 'core', 'shared', 'sqlite.js'))});
      const start = Number(process.argv[2]);
      while (Date.now() < start);
      openDatabase(process.argv[1], ${JSON.stringify(migrations)}).close();
    `;
    const start = String(Date.now() + 1500);
    // Before migrations took the write lock first, such a start often had one fail: "table a already exists";
    // before the switch to WAL was retried, one sometimes failed with "database is locked" (SQLITE_BUSY).
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => promisify(execFile)(process.execPath, ['-e', script, file, start])));
    const db = openDatabase(file, migrations);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.close();
  }, 30_000);
});
