import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { startInTemp, type Started } from '../shared/server';

/**
 * The web console in a real browser (Debian's Chromium, driven by playwright-core): served at
 * /console/ under a strict Content Security Policy, a person signs in through the realm's login
 * page, sees what their roles allow, administers users over the graph, with no serious or critical
 * axe-core violation and no horizontal scroll on a phone, and signs out. Runs when CHROMIUM_PATH
 * names a Chromium (skipped otherwise).
 */
const d = CHROMIUM_PATH ? describe : describe.skip;
jest.setTimeout(180_000);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown }[];
}
interface InPage {
  axe: { run(): Promise<{ violations: AxeViolation[] }> };
  document: { documentElement: { scrollWidth: number; clientWidth: number } };
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

async function severe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's own policy forbids injected scripts, and stays on.
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(() => (globalThis as unknown as InPage).axe.run());
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`);
}

const fitsWidth = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as InPage).document.documentElement;
    return el.scrollWidth <= el.clientWidth;
  });

d('the web console', () => {
  let platform: Started;
  let browser: Browser;
  let values: Record<string, string>;

  beforeAll(async () => {
    platform = await startInTemp('all');
    values = platform.bootstrap!.values;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  /** A fresh browser profile (its own cookies: no single sign-on from another test), phone-sized or not, recording console errors. */
  async function open(phone = false): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page, errors };
  }

  async function signIn(page: Page, username: string, password: string, realm = 'default') {
    await page.goto(`${platform.url}/console/`);
    await page.getByLabel('Realm').fill(realm);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const form = page.locator('form#kc-form-login');
    await form.waitFor();
    await form.locator('input#username').fill(username);
    await form.locator('input#password').fill(password);
    await form.locator('input#password').press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  it('serves its page under a strict Content Security Policy, never cached, and its hashed assets for a year, small', async () => {
    const redirect = await fetch(`${platform.url}/console?x=1`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/console/?x=1');
    const page = await fetch(`${platform.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    const html = await page.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<style>/);
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let gzipped = 0;
    for (const path of assets) {
      const res = await fetch(platform.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
      if (path.endsWith('.js')) gzipped += gzipSync(Buffer.from(await res.arrayBuffer())).length;
    }
    expect(gzipped).toBeLessThan(400 * 1024);
    expect((await fetch(`${platform.url}/console/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${platform.url}/console/`, { method: 'POST' })).status).toBe(405);
  });

  it('a platform administrator signs in, sees the platform, creates a user, and signs out; axe finds nothing serious', async () => {
    const { context, page, errors } = await open();
    try {
      await signIn(page, values.admin_username, values.admin_password);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.getByText('Model keys').waitFor();
      expect(await page.getByRole('definition').first().innerText()).toBe(values.admin_username);
      expect(await severe(page)).toEqual([]);

      await page.getByRole('link', { name: 'Realms' }).click();
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      await page.getByRole('cell', { name: values.admin_username, exact: true }).waitFor();
      const create = page.getByRole('form', { name: 'Create a user' });
      await create.getByLabel('Username').fill('carol');
      await create.getByLabel('Password').fill('carol-password-1');
      await create.getByLabel('Roles (comma-separated)').fill('search:read');
      await create.getByRole('button', { name: 'Create user' }).click();
      await page.getByText('User carol created.').waitFor();
      await page.getByRole('cell', { name: 'carol', exact: true }).waitFor();
      expect(await severe(page)).toEqual([]);
      const token = platform.instances.token as unknown as TokenCore;
      expect((await token.store.users.get(values.realm, 'carol'))?.roles).toEqual(['search:read']);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a phone, a plain user sees the overview only, with nothing wider than the screen', async () => {
    const { context, page, errors } = await open(true);
    try {
      await signIn(page, values.username, values.password);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.getByText('Signed in as').waitFor();
      expect(await page.getByRole('link', { name: 'Realms' }).count()).toBe(0);
      expect(await page.getByText('Model keys').count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a realm administrator sees only its own realm, on a phone too', async () => {
    const token = platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'console-other' });
    await token.admin.createUser({ realm: other.id, username: 'ra', password: 'ra-password-1', roles: ['realm-admin'] });
    const { context, page, errors } = await open(true);
    try {
      await signIn(page, 'ra', 'ra-password-1', 'console-other');
      await page.getByRole('link', { name: 'Realms' }).click();
      await page.getByRole('cell', { name: 'ra', exact: true }).waitFor();
      const options = await page.getByLabel('Realm').locator('option').allInnerTexts();
      expect(options).toEqual(['console-other']);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
