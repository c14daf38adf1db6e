import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { startInTemp, type Started } from '../shared/server';

/**
 * What the console's browser tests share: a platform started as `npm start` starts it (its first
 * start's administrator and demo user in `values`), Debian's Chromium, a fresh profile per person
 * (desktop 1280×800 or phone 390×844) recording console errors, signing in through the realm's
 * login page, axe-core's serious and critical violations with the page's policy on, and whether
 * the page is wider than the screen. Tests run when CHROMIUM_PATH is set.
 */
export const describeConsole = CHROMIUM_PATH ? describe : describe.skip;

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

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

export interface Visit {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of the page, as they came. */
  errors: string[];
}

export interface ConsoleFixture {
  platform: Started;
  /** The first start's bootstrap.json: realm, username, password, admin_username, admin_password, api_key, ... */
  values: Record<string, string>;
  open(opts?: { phone?: boolean }): Promise<Visit>;
  /** Signs in at /console/ through the realm's login page; resolves once the console shows the person signed in. */
  signIn(page: Page, username: string, password: string, realm?: string): Promise<void>;
  /** The platform administrator signed in, on a fresh profile. */
  asAdmin(opts?: { phone?: boolean }): Promise<Visit>;
  /**
   * Adds a document through the REST v2 API as the demo client, whose tenant is the demo user's
   * (search:read, search:write); its id. `doc` is the v2 body: title, content, tags, folders, ...
   */
  addDocument(doc: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

export async function consoleFixture(env: Record<string, string> = {}): Promise<ConsoleFixture> {
  const platform = await startInTemp('all', env);
  const values = platform.bootstrap!.values;
  const browser: Browser = await launchChromium();
  const open: ConsoleFixture['open'] = async ({ phone = false } = {}) => {
    const context = await browser.newContext({ viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page, errors };
  };
  const signIn: ConsoleFixture['signIn'] = async (page, username, password, realm = 'default') => {
    await page.goto(`${platform.url}/console/`);
    await page.getByLabel('Realm').fill(realm);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const form = page.locator('form#kc-form-login');
    await form.waitFor();
    await form.locator('input#username').fill(username);
    await form.locator('input#password').fill(password);
    await form.locator('input#password').press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  };
  return {
    platform,
    values,
    open,
    signIn,
    async asAdmin(opts) {
      const visit = await open(opts);
      await signIn(visit.page, values.admin_username, values.admin_password);
      return visit;
    },
    async addDocument(doc) {
      const grant = await fetch(`${platform.url}/auth/api/v1/oauth/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: values.client_id, client_secret: values.client_secret }),
      });
      const { access_token } = (await grant.json()) as { access_token: string };
      const added = await fetch(`${platform.url}/cl/search/api/v2/objects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
        body: JSON.stringify(doc),
      });
      if (added.status !== 201) throw new Error(`adding a document answered ${added.status}: ${await added.text()}`);
      return ((await added.json()) as { object_id: string }).object_id;
    },
    async stop() {
      await browser.close();
      await platform.stop();
    },
  };
}

/** axe-core's serious and critical violations on the page as it is (evaluated over the DevTools protocol: the page's policy stays on). */
export async function severe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(() => (globalThis as unknown as InPage).axe.run());
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`);
}

/** Whether nothing on the page is wider than the screen (no horizontal scroll). */
export const fitsWidth = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    const el = (globalThis as unknown as InPage).document.documentElement;
    return el.scrollWidth <= el.clientWidth;
  });
