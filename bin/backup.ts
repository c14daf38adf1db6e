import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { BadRequest, Conflict, NotFound } from '../core/shared/errors';

/**
 * `platform backup <dir>`: a copy of everything in the data directory, taken while the server runs.
 * Every SQLite file there (each service's store, whatever the registry holds) is copied with
 * SQLite's online backup, which reads one consistent snapshot through the WAL without stopping
 * writers; its `-wal` and `-shm` companions are not copied (the snapshot includes them). Other
 * files (bootstrap.json) are copied as they are. Each copy is written as `<name>.part`, checked
 * (`PRAGMA quick_check`) and renamed when whole, so a backup cut short is never taken for a good one.
 * Restore: with the server stopped, copy the files into an empty data directory (docs/production.md).
 */
export interface BackedUp {
  name: string;
  kind: 'sqlite' | 'file';
  bytes: number;
}

export interface BackupOptions {
  /** Pages copied of the database being copied, for a progress bar. */
  onProgress?(done: number, total: number, name: string): void;
  /** Called between two steps of a database's copy (tests write here to force a restart). */
  betweenSteps?(name: string): void;
}

const COMPANIONS = /-(wal|shm|journal)$/;
const SQLITE_HEADER = Buffer.from('SQLite format 3\0');
/** Pages per step: small steps let the bar move; a write by the server between two restarts the copy. */
const STEP_PAGES = 1024;

function isSqlite(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

/** Regular files under `dir`, as paths relative to it, companions left out, sorted. */
function filesUnder(dir: string, skip: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = join(sub, entry.name);
      if (resolve(dir, rel) === skip) continue;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && !COMPANIONS.test(entry.name)) out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/**
 * One database, copied in steps of STEP_PAGES. When the server writes between two steps SQLite
 * starts the copy again; after a restart the rest goes in one step, which holds a read snapshot
 * until it ends (writers go on meanwhile, in WAL mode), so a busy database cannot keep it from finishing.
 */
async function backupDatabase(src: string, dest: string, name: string, opts: BackupOptions): Promise<void> {
  const db = new Database(src, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    let remaining = Infinity;
    let restarted = false;
    await db.backup(dest, {
      progress: ({ totalPages, remainingPages }) => {
        // Each step copies pages unless SQLite started over (the source changed since the last).
        if (remainingPages >= remaining) restarted = true;
        remaining = remainingPages;
        opts.onProgress?.(totalPages - remainingPages, totalPages, name);
        opts.betweenSteps?.(name);
        return restarted ? 0x7fffffff : STEP_PAGES;
      },
    });
  } finally {
    db.close();
  }
  const copy = new Database(dest, { fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of ${name} failed its check: ${String(check)}`);
  } finally {
    copy.close();
  }
}

export async function backupDataDir(
  dataDir: string,
  target: string,
  opts: BackupOptions = {},
): Promise<{ backup: string; data_dir: string; files: BackedUp[]; bytes: number }> {
  const from = resolve(dataDir);
  const to = resolve(target);
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new NotFound(`no data directory at ${from}`);
  if (to === from || to.startsWith(from + sep)) throw new BadRequest(`the backup cannot go inside the data directory (${from})`);
  if (existsSync(to) && readdirSync(to).length) throw new Conflict(`${to} is not empty: back up into a new or empty directory`);
  const names = filesUnder(from, to);
  if (!names.some((n) => isSqlite(join(from, n)))) throw new NotFound(`${from} holds no database: is it the data directory?`);

  // Owner-only, like the data directory itself: the copies hold signing keys and credentials.
  const umask = process.umask(0o077);
  try {
    mkdirSync(to, { recursive: true, mode: 0o700 });
    chmodSync(to, 0o700);
    const files: BackedUp[] = [];
    for (const name of names) {
      const src = join(from, name);
      const dest = join(to, name);
      const part = `${dest}.part`;
      mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
      const kind = isSqlite(src) ? 'sqlite' : 'file';
      if (kind === 'sqlite') await backupDatabase(src, part, name, opts);
      else copyFileSync(src, part);
      chmodSync(part, 0o600);
      renameSync(part, dest);
      files.push({ name: relative(to, dest), kind, bytes: statSync(dest).size });
    }
    return { backup: to, data_dir: from, files, bytes: files.reduce((n, f) => n + f.bytes, 0) };
  } finally {
    process.umask(umask);
  }
}
