/**
 * `npm run bench:console`: how soon the web console is usable from localhost, in Debian's Chromium
 * (CHROMIUM_PATH, else /usr/bin/chromium), against the platform's other browser page, GraphiQL, in
 * the same run on the same server. Needs `npm run build` first.
 *
 * - cold: a fresh browser profile (nothing cached) opens /console/ until its Sign in button is
 *   there; GraphiQL until its editor is.
 * - warm: the same profile opens it again (hashed assets from the cache, the page revalidated).
 * - signed in: a reload of a signed-in console until the overview shows the person (the refresh
 *   token exchanged, the graph asked).
 *
 * BENCH_ROUNDS (15) per measure; medians and 90th percentiles; the console's over GraphiQL's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../test/shared/chromium';
import { fixed, markdownTable } from '../shared/progress';
import { freePort, killAllSync, startChild, stopAll, waitHealthy } from '../shared/procs';
import { intEnv, loadAverage } from '../shared/settings';

const ROOT = resolve(__dirname, '..', '..', '..');

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function timed(page: Page, url: string, ready: (p: Page) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await ready(page);
  return performance.now() - started;
}

async function main() {
  const rounds = intEnv('BENCH_ROUNDS', 15, 1);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const loadBefore = loadAverage();
  process.on('exit', killAllSync);
  const server = startChild('platform', [join('dist', 'bin', 'platform.js'), 'start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), PLATFORM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', METRICS_PORT: '0', WORKERS: '1' },
    logFile: join(dataDir, 'server.log'),
  });
  let browser: Browser | undefined;
  try {
    await waitHealthy(`${base}/healthz`, server);
    const v = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const signInButton = (p: Page) => p.getByRole('button', { name: 'Sign in' }).waitFor();
    const graphiqlEditor = (p: Page) => p.locator('.graphiql-container .graphiql-query-editor').first().waitFor();
    const measures: Record<string, number[]> = {
      'console, cold': [],
      'GraphiQL, cold': [],
      'console, warm': [],
      'GraphiQL, warm': [],
      'console, signed in': [],
    };
    for (let i = 0; i < rounds; i++) {
      for (const [name, path, ready] of [
        ['console', '/console/', signInButton],
        ['GraphiQL', '/graphiql', graphiqlEditor],
      ] as const) {
        const context = await browser.newContext();
        const page = await context.newPage();
        measures[`${name}, cold`].push(await timed(page, base + path, ready));
        measures[`${name}, warm`].push(await timed(page, base + path, ready));
        await context.close();
      }
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/console/`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('form#kc-form-login input#username').fill(v.admin_username);
      await page.locator('input#password').fill(v.admin_password);
      await page.locator('input#password').press('Enter');
      await page.getByRole('definition').first().waitFor();
      measures['console, signed in'].push(
        await timed(page, `${base}/console/`, (p) => p.getByRole('definition').first().filter({ hasText: v.admin_username }).waitFor()),
      );
      await context.close();
    }
    const rows = Object.entries(measures).map(([name, xs]) => [name, fixed(quantile(xs, 0.5), 0), fixed(quantile(xs, 0.9), 0)]);
    const ratio = (a: string, b: string) => fixed(quantile(measures[a], 0.5) / quantile(measures[b], 0.5));
    process.stdout.write(
      [
        `# The console's first page, ${rounds} rounds (load average before: ${loadBefore})`,
        '',
        markdownTable(['measure', 'median ms', 'p90 ms'], rows),
        '',
        `console / GraphiQL, cold: ${ratio('console, cold', 'GraphiQL, cold')}x; warm: ${ratio('console, warm', 'GraphiQL, warm')}x`,
        '',
      ].join('\n'),
    );
  } finally {
    await browser?.close();
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
