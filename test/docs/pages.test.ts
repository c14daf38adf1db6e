import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { allPages, docPages, parsePage } from '../e2e/docs/markdown';

const ROOT = join(__dirname, '..', '..');

/** The README and docs/ pages' text with code (fenced blocks and inline spans) blanked, so only prose links are read. */
const prose = (text: string) => text.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\s*\2\s*$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string) =>
  new Set(
    prose(readFileSync(file, 'utf8'))
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => slug(l.replace(/^#+ /, ''))),
  );

describe('the shell blocks of the README and docs/', () => {
  const pages = allPages();

  it('are each run by the docs tests, or marked as not run with the reason', () => {
    const unplanned = pages.flatMap((p) => (p.directive ? [] : p.blocks.filter((b) => !b.notRun)).map((b) => `${b.page}:${b.line}`));
    expect(unplanned).toEqual([]);
    const notRun = pages.flatMap((p) => p.blocks.filter((b) => b.notRun).map((b) => `${b.page}:${b.line}: ${b.notRun}`));
    const run = pages.flatMap((p) => (p.directive ? p.blocks.filter((b) => !b.notRun) : []));
    process.stdout.write(`docs blocks: ${run.length} run, ${notRun.length} not run:\n${notRun.map((l) => `  ${l}\n`).join('')}`);
    // The few that cannot run in a test; a new one is a decision to make here, not a silent skip.
    expect(notRun.length).toBeLessThanOrEqual(8);
    expect(run.length).toBeGreaterThan(30);
  });

  it("include the README's tour and every service's, run with the platform started", () => {
    const started = pages.filter((p) => p.directive?.mode === 'started').map((p) => p.path);
    expect(started).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/tour-token.md',
        'docs/tour-search.md',
        'docs/tour-models.md',
        'docs/tour-chat.md',
        'docs/graphql.md',
      ]),
    );
    expect(pages.filter((p) => p.directive?.mode === 'alone').map((p) => p.path)).toEqual(
      expect.arrayContaining(['docs/parts-apart.md', 'docs/replicas.md']),
    );
  });

  it('reads the markers strictly: a misplaced or unknown one is an error, not a block run or skipped unseen', () => {
    expect(() => parsePage('x.md', '<!-- docs-test: not run: why -->\n\ntext\n```bash\necho\n```\n')).toThrow(/right before its block/);
    expect(() => parsePage('x.md', '<!-- docs-test: skip -->\n```bash\necho\n```\n')).toThrow(/not run: <why>/);
    expect(() => parsePage('x.md', '<!-- docs-test page: sometimes -->\n')).toThrow(/neither/);
    expect(() => parsePage('x.md', '<!-- docs-test page: alone; fresh ports http -->\n')).toThrow(/not a port/);
    expect(
      parsePage(
        'x.md',
        '<!-- docs-test page: alone; needs postgres; fresh ports 8080 9464; fresh database ai_platform -->\n```sh\necho\n```\n',
      ),
    ).toEqual({
      path: 'x.md',
      directive: { mode: 'alone', needs: ['postgres'], ports: ['8080', '9464'], databases: ['ai_platform'] },
      blocks: [{ page: 'x.md', line: 2, code: 'echo' }],
    });
  });
});

describe('the links of the README and docs/', () => {
  const links = docPages().flatMap((page) =>
    [...prose(readFileSync(join(ROOT, page), 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ page, target: m[1] })),
  );

  it('name no path outside the repository, even as code', () => {
    // A path in backquotes is a link a reader follows by hand.
    const outside = docPages().flatMap((page) =>
      [
        ...readFileSync(join(ROOT, page), 'utf8')
          .replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\s*\2\s*$/gm, '')
          .matchAll(/`(\.\.\/[^`\s]+)`/g),
      ]
        .filter((m) => relative(ROOT, resolve(dirname(join(ROOT, page)), m[1])).startsWith('..'))
        .map((m) => `${page}: ${m[1]}`),
    );
    expect(outside).toEqual([]);
  });

  it('are found', () => {
    expect(links.length).toBeGreaterThan(50);
  });

  it('never leave the repository, and name a file that exists (and a heading it has)', () => {
    const bad: string[] = [];
    for (const { page, target } of links) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:: not files
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? resolve(dirname(join(ROOT, page)), decodeURIComponent(path)) : join(ROOT, page);
      const inside = relative(ROOT, file);
      if (inside.startsWith('..') || inside.startsWith('/')) bad.push(`${page}: ${target} leaves the repository`);
      else if (!existsSync(file)) bad.push(`${page}: ${target} does not exist`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) bad.push(`${page}: ${target}: no such heading`);
    }
    expect(bad).toEqual([]);
  });
});

describe('git', () => {
  it('ignores every data directory the docs make, and their backups and settings files', () => {
    const ignored = (path: string) => {
      try {
        execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
        return true;
      } catch {
        return false;
      }
    };
    // What the pages' commands name (PLATFORM_DATA_DIR=..., mkdir, cat >, backups/), and the default data directory.
    const code = allPages()
      .flatMap((p) => p.blocks)
      .map((b) => b.code)
      .join('\n');
    const written = new Set(['data', 'data-1', 'data-2', 'data.restored', 'backups', 'parts.env']);
    for (const m of code.matchAll(/PLATFORM_DATA_DIR=\.?\/?([\w.-]+)/g)) written.add(m[1]);
    for (const m of code.matchAll(/mkdir (?:-m \d+ )?([\w.-]+)/g)) written.add(m[1]);
    for (const m of code.matchAll(/cat > ([\w.-]+)/g)) written.add(m[1]);
    for (const m of code.matchAll(/"(\w+)\/\$\(date/g)) written.add(m[1]);
    const files = [...written].map((w) => (w.includes('.env') ? w : `${w}/bootstrap.json`));
    expect(files.filter((f) => !ignored(f))).toEqual([]);
    // Not everything: the sources stay tracked.
    expect(ignored('README.md')).toBe(false);
    expect(ignored('bench/datasets/scifact/README.md')).toBe(false);
  });
});
