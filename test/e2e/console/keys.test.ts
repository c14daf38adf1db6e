import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import type { ModelsInstance } from '../../../services/models/instance';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Model keys page (#/keys) in Chromium: a platform administrator creates a key with
 * limits, models and expiry, sees it once with a Copy button, uses it at the gateway, reads its
 * usage, rotates it and revokes it, each after a confirmation, and the platform's keys follow; a
 * realm administrator sees and creates its own tenant's keys only; a plain user has no such page.
 */
/** What the test reads in the page. */
interface InPage {
  navigator: { clipboard: { readText(): Promise<string> } };
}

jest.setTimeout(180_000);

describeConsole('the console: model keys', () => {
  let f: ConsoleFixture;
  let models: ModelsInstance;

  beforeAll(async () => {
    f = await consoleFixture();
    models = f.platform.instances.models as unknown as ModelsInstance;
  }, 120_000);
  afterAll(() => f?.stop());

  /** What the gateway answers a key. */
  const listModels = (key: string) => fetch(`${f.platform.url}/proxy/api/v1/models`, { headers: { 'api-key': key } }).then((r) => r.status);
  const chat = (key: string) =>
    fetch(`${f.platform.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': `${key}/{"is_cache":0}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    }).then((r) => r.status);
  const shownKey = (page: Page) => page.getByRole('textbox', { name: 'The new key' }).inputValue();

  it('a platform administrator creates a key, copies it, uses it, reads its usage, rotates and revokes it', async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.platform.url });
      await page.getByRole('link', { name: 'Model keys' }).click();
      await page.getByRole('heading', { name: 'Model keys', level: 1 }).waitFor();
      await page.getByRole('cell', { name: 'demo', exact: false }).first().waitFor();
      expect(await severe(page)).toEqual([]);

      const create = page.getByRole('form', { name: 'Create a model key' });
      await create.getByLabel('Name').fill('console-key');
      await create.getByLabel('Requests per minute').fill('60');
      await create.getByLabel('Tokens per month').fill('100000');
      await create.getByLabel('Budget per month (USD)').fill('5');
      await create.getByLabel('Expires').fill('2099-01-01T00:00');
      await create.getByLabel(/Allowed models/).selectOption(['local-chat']);
      await create.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'Key “console-key” created' }).waitFor();
      await page.getByText('it will not be shown again').waitFor();
      const key = await shownKey(page);
      expect(key).toMatch(/^lmk-/);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(key);
      expect(await severe(page)).toEqual([]);

      const made = (await models.keys.list()).filter((k) => k.name === 'console-key');
      expect(made).toHaveLength(1);
      expect(made[0]).toMatchObject({ models: ['local-chat'], requestsPerMinute: 60, tokenBudget: 100000, revokedAt: null });
      expect(made[0].budget).toEqual({ usd: 5, period: 'monthly', warnAt: 0.8 });
      expect(made[0].expiresAt?.getFullYear()).toBe(2099);
      expect(key.startsWith(made[0].prefix)).toBe(true);
      expect(await listModels(key)).toBe(200);
      expect(await chat(key)).toBe(200);

      // The key's usage: its call today (the gateway records usage a moment after the call).
      const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'console-key', exact: true }) });
      await row.getByRole('cell', { name: '60 / min' }).waitFor();
      // Its money budget and what it spent this month (the local model is free).
      await row.getByRole('cell', { name: /\$0(\.00)? of \$5(\.00)? \/ month/ }).waitFor();
      const today = new Date().toISOString().slice(0, 10);
      for (let tries = 0; ; tries++) {
        await page.getByRole('button', { name: 'Usage of console-key' }).click();
        const usage = page.getByRole('region', { name: /Usage of “console-key”/ });
        await usage.getByText(/No calls|Day \(UTC\)/).waitFor();
        if (await usage.getByRole('cell', { name: today }).count()) {
          expect(Number(await usage.getByRole('row').nth(1).getByRole('cell').nth(1).innerText())).toBeGreaterThanOrEqual(1);
          break;
        }
        expect(tries).toBeLessThan(20);
        await usage.getByRole('button', { name: 'Close usage' }).click();
        await page.waitForTimeout(250);
      }
      expect(await severe(page)).toEqual([]);

      // Rotating asks first; Cancel leaves the key alone.
      await page.getByRole('button', { name: 'Rotate console-key' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Rotate console-key' }).click();
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Yes, rotate' }).click();
      await page.getByRole('heading', { name: 'Key “console-key” rotated' }).waitFor();
      const rotated = await shownKey(page);
      expect(rotated).toMatch(/^lmk-/);
      expect(rotated).not.toBe(key);
      expect(await listModels(rotated)).toBe(200);
      expect(await listModels(key)).toBe(401);
      const afterRotate = (await models.keys.list()).filter((k) => k.name === 'console-key');
      expect(afterRotate.filter((k) => !k.revokedAt)).toHaveLength(1);
      expect(afterRotate.find((k) => !k.revokedAt)).toMatchObject({ models: ['local-chat'], requestsPerMinute: 60, tokenBudget: 100000 });
      await page.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByRole('textbox', { name: 'The new key' }).count()).toBe(0);

      await page.getByRole('button', { name: 'Revoke console-key' }).click();
      await page.getByRole('button', { name: 'Yes, revoke' }).click();
      await page.getByText(/Key “console-key” \(lmk-[\w-]{6}…\) revoked\./).waitFor();
      expect(await listModels(rotated)).toBe(401);
      expect((await models.keys.list()).filter((k) => k.name === 'console-key' && !k.revokedAt)).toEqual([]);
      await page.getByRole('cell', { name: 'console-key', exact: true }).waitFor({ state: 'detached' });

      // The filters: revoked keys by name.
      await page.getByLabel('State').selectOption('revoked');
      await page.getByLabel('Name contains').fill('console');
      await page.getByRole('cell', { name: 'console-key', exact: true }).nth(1).waitFor();
      expect(await page.getByRole('cell', { name: 'console-key', exact: true }).count()).toBe(2);
      expect(await page.getByRole('button', { name: 'Revoke console-key' }).count()).toBe(0);
      await page.getByLabel('Name contains').fill('no-such-key');
      await page.getByText('No key matches these filters.').waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a realm administrator, on a phone, sees and creates its own tenant's keys only", async () => {
    const token = f.platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'keys-other' });
    await token.admin.createUser({ realm: other.id, username: 'kra', password: 'kra-password-1', roles: ['realm-admin'] });
    await models.keys.create({ name: 'other-tenant-key', tenant: other.id });
    await models.keys.create({ name: 'default-tenant-key', tenant: f.values.tenant_id });
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'kra', 'kra-password-1', 'keys-other');
      await page.getByRole('link', { name: 'Model keys' }).click();
      await page.getByRole('cell', { name: 'other-tenant-key', exact: true }).waitFor();
      expect(await page.getByRole('cell', { name: 'default-tenant-key', exact: true }).count()).toBe(0);
      expect(await page.getByRole('cell', { name: 'demo', exact: false }).count()).toBe(0);
      const tenants = await page
        .getByRole('form', { name: 'Create a model key' })
        .getByLabel('Tenant')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
      expect(tenants).toEqual([other.id]);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);

      const create = page.getByRole('form', { name: 'Create a model key' });
      await create.getByLabel('Name').fill('ra-made-key');
      await create.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'Key “ra-made-key” created' }).waitFor();
      expect(await shownKey(page)).toMatch(/^lmk-/);
      await page.getByRole('cell', { name: 'ra-made-key', exact: true }).waitFor();
      expect((await models.keys.list()).find((k) => k.name === 'ra-made-key')).toMatchObject({ tenant: other.id, models: null });
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a plain user has no Model keys page', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, f.values.username, f.values.password);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('link', { name: 'Model keys' }).count()).toBe(0);
      await page.goto(`${f.platform.url}/console/#/keys`);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Model keys' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
