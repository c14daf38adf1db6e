import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupDataDir } from '../../bin/backup';
import { BadRequest, Conflict, NotFound } from '../../core/shared/errors';

/** A data directory with a WAL database of `rows` 4 KiB rows, open (as a server holds it) until `close`. */
function dataDir(rows: number) {
  const root = mkdtempSync(join(tmpdir(), 'backup-unit-'));
  const dir = join(root, 'data');
  mkdirSync(dir);
  const db = new Database(join(dir, 'store.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
  const insert = db.prepare('INSERT INTO t (b) VALUES (randomblob(4000))');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run();
  })();
  writeFileSync(join(dir, 'bootstrap.json'), '{"realm":"r"}\n');
  return {
    root,
    dir,
    db,
    insert,
    close: () => {
      db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const rowsIn = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('backupDataDir', () => {
  it('finishes a database written to between every step of its copy, and the copy is one consistent snapshot', async () => {
    const d = dataDir(3000);
    try {
      // Another connection writes a row after each step: SQLite restarts the copy every time, which
      // would never end; after the first restart the rest is copied in one step under one snapshot.
      const done: number[] = [];
      const out = await backupDataDir(d.dir, join(d.root, 'b'), {
        onProgress: (n) => done.push(n),
        betweenSteps: () => void d.insert.run(),
      });
      expect(done.some((n, i) => i > 0 && n <= done[i - 1])).toBe(true);
      const copied = rowsIn(join(d.root, 'b', 'store.db'));
      expect(copied).toBeGreaterThanOrEqual(3000);
      expect(copied).toBeLessThanOrEqual(rowsIn(join(d.dir, 'store.db')));
      expect(out.files.map((f) => [f.name, f.kind])).toEqual([
        ['bootstrap.json', 'file'],
        ['store.db', 'sqlite'],
      ]);
    } finally {
      d.close();
    }
  });

  it('copies every file of the data directory but the WAL companions, owner-only', async () => {
    const d = dataDir(10);
    try {
      mkdirSync(join(d.dir, 'extra'));
      writeFileSync(join(d.dir, 'extra', 'notes.txt'), 'kept');
      const target = join(d.root, 'nested', 'b');
      await backupDataDir(d.dir, target);
      expect(readdirSync(target, { recursive: true }).map(String).sort()).toEqual([
        'bootstrap.json',
        'extra',
        join('extra', 'notes.txt'),
        'store.db',
      ]);
      expect(statSync(target).mode & 0o777).toBe(0o700);
      for (const f of ['bootstrap.json', 'store.db', join('extra', 'notes.txt')])
        expect(statSync(join(target, f)).mode & 0o777).toBe(0o600);
      expect(rowsIn(join(target, 'store.db'))).toBe(10);
    } finally {
      d.close();
    }
  });

  it('refuses a non-empty target, a target inside the data directory, and a folder without a database', async () => {
    const d = dataDir(1);
    try {
      mkdirSync(join(d.root, 'full'));
      writeFileSync(join(d.root, 'full', 'x'), 'x');
      await expect(backupDataDir(d.dir, join(d.root, 'full'))).rejects.toThrow(Conflict);
      await expect(backupDataDir(d.dir, join(d.dir, 'inside'))).rejects.toThrow(BadRequest);
      await expect(backupDataDir(join(d.root, 'full'), join(d.root, 'b'))).rejects.toThrow(/holds no database/);
      await expect(backupDataDir(join(d.root, 'missing'), join(d.root, 'b'))).rejects.toThrow(NotFound);
    } finally {
      d.close();
    }
  });
});
