import { gzipSync } from 'node:zlib';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The web console in a real browser (Debian's Chromium, driven by playwright-core): served at
 * /console/ under a strict Content Security Policy, a person signs in through the realm's login
 * page, sees what their roles allow, administers users over the graph, with no serious or critical
 * axe-core violation and no horizontal scroll on a phone, and signs out. Runs when CHROMIUM_PATH
 * names a Chromium (skipped otherwise).
 */
jest.setTimeout(180_000);

describeConsole('the web console', () => {
  let f: ConsoleFixture;
  let platform: ConsoleFixture['platform'];
  let values: Record<string, string>;

  beforeAll(async () => {
    f = await consoleFixture();
    ({ platform, values } = f);
  }, 120_000);
  afterAll(() => f?.stop());

  const open = (phone = false) => f.open({ phone });
  const signIn = (...args: Parameters<ConsoleFixture['signIn']>) => f.signIn(...args);

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
      await page.getByRole('list', { name: 'What the platform holds' }).getByText('Model keys').waitFor();
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
