import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../shared/server';

/** What the docs' commands write into the project folder: never linked into a copy, so each copy starts without them. */
const WRITTEN = /^(data.*|backups|parts\.env|nginx)$/;

/**
 * A temporary copy of the project folder, made of links to the checkout's files and folders (built
 * `dist/` and `node_modules` included), so that commands run from it as from the project folder
 * (`npm start`, `npm run -s platform -- ...`, `node examples/...`) while everything they write
 * (`./data`, `data-1/`, `parts.env`, backups) lands in the copy, fresh, and goes with it.
 */
export function projectCopy(prefix = 'platform-docs-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const name of readdirSync(ROOT)) {
    if (name.startsWith('.') || WRITTEN.test(name)) continue;
    symlinkSync(join(ROOT, name), join(dir, name));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The processes whose working directory is `dir` (what a stopped platform must not leave behind). */
export function processesIn(dir: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) !== dir) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(entry), cmd });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The live processes of process group `pgid` (a detached child's: it and what it started in the background). */
export function processGroup(pgid: number): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || Number(fields[2]) !== pgid) continue;
      found.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
