import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../shared/server';

/**
 * The shell blocks of the README and of docs/, and what the markdown says about running them.
 *
 * A page whose shell blocks the docs tests run says how, once, in a comment of its own line:
 *
 *   <!-- docs-test page: with the platform started -->   run against one `npm start` (BASE set to it)
 *   <!-- docs-test page: alone -->                        run in a fresh copy of the project, nothing started
 *
 * followed, in the same comment, by any of (separated by `;`):
 *
 *   needs postgres redis          run only where the tests have them (DATABASE_URL, REDIS_URL), as the other suites
 *   fresh ports 8081 8082 ...     each of these numbers becomes a free port, the same one throughout the page
 *   fresh database ai_platform    this name becomes a new database's (dropped afterwards)
 *
 * A block that cannot run in a test says so, and why, on the line before its fence:
 *
 *   <!-- docs-test: not run: installs the dependencies -->
 *
 * Every other shell block is run; a shell block on a page without a `docs-test page` comment, and
 * not marked, fails the inventory test, so nothing is left out unseen.
 */
export interface ShellBlock {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** Why it is not run (`not run: ...`), when it is not. */
  notRun?: string;
}

export interface PageDirective {
  mode: 'started' | 'alone';
  needs: string[];
  ports: string[];
  databases: string[];
}

export interface Page {
  path: string;
  directive?: PageDirective;
  blocks: ShellBlock[];
}

const SHELL = new Set(['bash', 'sh', 'shell', 'console']);
const PAGE = /^<!-- docs-test page: (.*) -->\s*$/;
const BLOCK = /^<!-- docs-test: (.*) -->\s*$/;

export function parseDirective(text: string, where: string): PageDirective {
  const [mode, ...clauses] = text
    .split(';')
    .map((c) => c.trim())
    .filter(Boolean);
  const out: PageDirective = { mode: 'alone', needs: [], ports: [], databases: [] };
  if (mode === 'with the platform started') out.mode = 'started';
  else if (mode !== 'alone') throw new Error(`${where}: docs-test page: '${mode}' is neither 'with the platform started' nor 'alone'`);
  for (const clause of clauses) {
    const words = clause.split(/\s+/);
    if (words[0] === 'needs') out.needs.push(...words.slice(1));
    else if (words[0] === 'fresh' && words[1] === 'ports') out.ports.push(...words.slice(2));
    else if (words[0] === 'fresh' && words[1] === 'database') out.databases.push(...words.slice(2));
    else throw new Error(`${where}: docs-test page: unknown clause '${clause}'`);
  }
  for (const n of out.needs)
    if (!['postgres', 'redis', 'nginx'].includes(n)) throw new Error(`${where}: docs-test page: needs what? '${n}'`);
  for (const p of out.ports) if (!/^\d{2,5}$/.test(p)) throw new Error(`${where}: docs-test page: '${p}' is not a port`);
  return out;
}

export function parsePage(path: string, text = readFileSync(join(ROOT, path), 'utf8')): Page {
  const lines = text.split('\n');
  const page: Page = { path, blocks: [] };
  let pending: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const pageMark = PAGE.exec(line);
    if (pageMark) {
      if (page.directive) throw new Error(`${path}:${i + 1}: a second docs-test page comment`);
      page.directive = parseDirective(pageMark[1], `${path}:${i + 1}`);
      continue;
    }
    const blockMark = BLOCK.exec(line);
    if (blockMark) {
      pending = blockMark[1]!;
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (fence) {
      const close = new RegExp(`^\\s*${fence[2][0] === '`' ? '`' : '~'}{${fence[2].length},}\\s*$`);
      let end = i + 1;
      while (end < lines.length && !close.test(lines[end])) end++;
      if (SHELL.has(fence[3])) {
        const block: ShellBlock = {
          page: path,
          line: i + 1,
          code: lines
            .slice(i + 1, end)
            .map((l) => l.slice(fence[1].length))
            .join('\n'),
        };
        if (pending !== undefined) {
          const why = /^not run: (.+)$/.exec(pending);
          if (!why) throw new Error(`${path}:${i}: '<!-- docs-test: ${pending} -->': a block's comment is 'not run: <why>'`);
          block.notRun = why[1].trim();
        }
        page.blocks.push(block);
      } else if (pending !== undefined) {
        throw new Error(`${path}:${i}: a docs-test comment before a block that is not a shell block`);
      }
      pending = undefined;
      i = end;
      continue;
    }
    if (pending !== undefined && line.trim() !== '')
      throw new Error(`${path}:${i + 1}: a docs-test comment must come right before its block`);
  }
  return page;
}

/** README.md and every markdown page under docs/, README first. */
export function docPages(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md')) found.push(relative(ROOT, full));
    }
  };
  walk(join(ROOT, 'docs'));
  return ['README.md', ...found];
}

export const allPages = (): Page[] => docPages().map((p) => parsePage(p));
