import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { freePort } from '../../../bench/shared/ports';
import { CHROMIUM_ARGS } from '../../shared/chromium';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';

/**
 * The screenshots of docs/console.md: `npm run -s build && node dist/test/e2e/console/screenshots.js`
 * starts the platform as `npm start` does (in a temporary data directory), adds a document and a few
 * model calls, signs in as the first start's administrator in Debian's Chromium (CHROMIUM_PATH, else
 * /usr/bin/chromium) and writes docs/console/<page>.png at 1280×800; the chat and documents pages as the demo user, also on a phone.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const OUT = join(ROOT, 'docs', 'console');

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-shots-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // A model whose upstream refuses connections: one call to it makes the overview's recent errors show a 502.
  const catalog = join(dataDir, 'catalog.json');
  const dead = {
    id: 'dead-chat',
    group: 'A',
    kind: 'chat',
    contextLength: 8192,
    upstream: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'gone' },
  };
  writeFileSync(catalog, JSON.stringify({ models: [...DEFAULT_CATALOG.models, dead] }));
  const server = spawn(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'start'], {
    env: {
      ...process.env,
      PORT: String(port),
      PLATFORM_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      METRICS_PORT: '0',
      MODELS_CATALOG_FILE: catalog,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('listening on')) resolve();
      });
      server.once('exit', (code) => reject(new Error(`the platform exited (${code}): ${out}`)));
    });
    const v = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const login = (await (
      await post('/auth/api/v1/oauth/connect/user/login', { realm: v.realm, username: v.username, password: v.password }, {})
    ).json()) as {
      access_token: string;
    };
    await post(
      '/cl/search/api/v2/objects',
      { title: 'Glaciers', content: 'Glaciers retreat as the climate warms; sea levels rise.', tags: ['science'] },
      { authorization: `Bearer ${login.access_token}` },
    );
    await post(
      '/cl/search/api/v2/objects',
      {
        title: 'Meltwater',
        content: 'Meltwater from glaciers feeds rivers, then the sea, as the climate warms.',
        tags: ['science', 'water'],
      },
      { authorization: `Bearer ${login.access_token}` },
    );
    await post(
      '/proxy/api/v1/azure/openai/deployments/dead-chat/chat/completions?api-version=2024-10-21',
      { messages: [{ role: 'user', content: 'Hello?' }] },
      { 'api-key': v.api_key },
    );
    for (const q of ['Why do glaciers retreat?', 'What rises as glaciers melt?'])
      await post(
        '/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21',
        { messages: [{ role: 'user', content: q }] },
        { 'api-key': v.api_key },
      );

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${base}/console/`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('form#kc-form-login input#username').fill(v.admin_username);
      await page.locator('input#password').fill(v.admin_password);
      await page.locator('input#password').press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      const shot = async (p: Page, name: string, ready: () => Promise<unknown>) => {
        await ready();
        await p.screenshot({ path: join(OUT, `${name}.png`) });
        process.stdout.write(`docs/console/${name}.png\n`);
      };
      const visit = async (link: string, name: string, ready: () => Promise<unknown>) => {
        await page.getByRole('link', { name: link, exact: true }).click();
        await shot(page, name, ready);
      };
      // The whole page: the platform's services, replicas and recent errors come below the counts.
      await page.getByRole('table', { name: /^Recent server errors/ }).waitFor();
      await page.getByRole('list', { name: 'What the platform holds' }).waitFor();
      await page.getByRole('definition').first().waitFor();
      await page.screenshot({ path: join(OUT, 'overview.png'), fullPage: true });
      process.stdout.write('docs/console/overview.png\n');
      await visit('Realms', 'realms', () => page.getByRole('cell', { name: v.admin_username, exact: true }).waitFor());
      await visit('Model keys', 'keys', () => page.getByRole('cell', { name: 'demo', exact: false }).first().waitFor());
      await visit('Models', 'models', () => page.getByRole('cell', { name: 'local-chat', exact: true }).first().waitFor());
      await visit('Usage', 'usage', () => page.locator('canvas').first().waitFor());
      await visit('Audit', 'audit', () => page.getByRole('cell', { name: 'login.success' }).first().waitFor());
      await visit('My sessions', 'account', () => page.getByRole('cell', { name: 'This browser', exact: true }).waitFor());
      // The chat playground as a person of the tenant (the administrator holds no search role).
      const person = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await person.goto(`${base}/console/`);
      await person.getByRole('button', { name: 'Sign in' }).click();
      await person.locator('form#kc-form-login input#username').fill(v.username);
      await person.locator('input#password').fill(v.password);
      await person.locator('input#password').press('Enter');
      await person.getByRole('link', { name: 'Chat', exact: true }).click();
      await person.getByLabel('LM key (api-key)').fill(v.api_key);
      await person.getByLabel('Question', { exact: true }).fill('Why do glaciers retreat?');
      await person.getByRole('button', { name: 'Ask' }).click();
      const answered = () => person.getByText('Model local-chat.', { exact: false }).first().waitFor();
      await shot(person, 'chat', answered);
      await person.setViewportSize({ width: 390, height: 844 });
      await shot(person, 'chat-phone', answered);
      // The documents page: the search playground, then (on a phone) two uploads to their end.
      await person.setViewportSize({ width: 1280, height: 800 });
      await person.getByRole('link', { name: 'Documents', exact: true }).click();
      await person.getByRole('tab', { name: 'Search playground' }).click();
      const playground = person.getByRole('form', { name: 'Search playground' });
      await playground.getByLabel('Mode').selectOption('FULLTEXT');
      await playground.getByLabel('Query').fill('glaciers climate');
      await playground.getByRole('button', { name: 'Search' }).click();
      await shot(person, 'documents', () => person.locator('.doc-hit mark').first().waitFor());
      await person.setViewportSize({ width: 390, height: 844 });
      await person.getByRole('tab', { name: 'Upload' }).click();
      await person.getByLabel('Choose files to upload').setInputFiles([
        { name: 'sea-ice.md', mimeType: 'text/markdown', buffer: Buffer.from('# Sea ice\n\nSea ice forms when the ocean freezes.') },
        { name: 'permafrost.txt', mimeType: 'text/plain', buffer: Buffer.from('Permafrost is ground frozen for two years or more.') },
      ]);
      await shot(person, 'documents-phone', () =>
        person
          .getByRole('link', { name: /^Open / })
          .nth(1)
          .waitFor(),
      );
    } finally {
      await browser.close();
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
