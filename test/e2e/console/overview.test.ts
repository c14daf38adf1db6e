import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Overview (#/) in Chromium, for administrators: the platform's version, its four
 * services healthy and ready, the one replica serving the page, and a server error that happened
 * (a model whose upstream refuses connections: 502) once the page is refreshed, said in its live
 * region; the same on a phone, in cards that fit the screen; a realm administrator sees the
 * services but not the replicas or the errors.
 */
jest.setTimeout(180_000);

describeConsole('the console: overview', () => {
  let f: ConsoleFixture;
  const catalog = join(tmpdir(), `catalog-console-overview-${process.pid}-${Date.now()}.json`);

  beforeAll(async () => {
    // An upstream on a port nobody listens on: every call to it fails with 502, honestly.
    const dead = { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'gone' };
    writeFileSync(
      catalog,
      JSON.stringify({
        models: [...DEFAULT_CATALOG.models, { id: 'dead-chat', group: 'A', kind: 'chat', contextLength: 8192, upstream: dead }],
      }),
    );
    f = await consoleFixture({ MODELS_CATALOG_FILE: catalog });
    const token = f.platform.instances.token as TokenCore;
    const other = await token.admin.createRealm({ name: 'overview-console' });
    await token.admin.createUser({ realm: other.id, username: 'ora', password: 'ora-password-1', roles: [REALM_ADMIN_ROLE] });
  }, 120_000);
  afterAll(async () => {
    await f?.stop();
    rmSync(catalog, { force: true });
  });

  const failOnce = async (requestId: string) => {
    const res = await fetch(`${f.platform.url}/proxy/api/v1/azure/openai/deployments/dead-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': f.values.api_key, 'x-request-id': requestId },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(502);
  };
  const services = (page: Page) => page.getByRole('table', { name: /^Services/ });
  const replicas = (page: Page) => page.getByRole('table', { name: /^Replicas/ });
  const recent = (page: Page) => page.getByRole('table', { name: /^Recent server errors/ });

  it('shows a platform administrator the version, the services, the replica, and a new error after Refresh; axe finds nothing serious', async () => {
    const { page, context, errors } = await f.asAdmin();
    try {
      await page.getByRole('heading', { name: 'Platform' }).waitFor();
      for (const name of ['Token service', 'Search service', 'Model gateway', 'Chat proxy']) {
        const row = services(page)
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
        await row.getByRole('cell', { name: 'Ready', exact: true }).waitFor();
        expect(await row.getByRole('cell').allInnerTexts()).toEqual(['In process', 'Healthy', 'Ready']);
      }
      expect(
        await page
          .getByText(/^\d+\.\d+\.\d+/)
          .first()
          .innerText(),
      ).toMatch(/^\d+\.\d+\.\d+/);
      const me = replicas(page).getByRole('row').filter({ hasText: '(this page)' });
      await me.getByRole('cell', { name: 'Live' }).waitFor();
      expect(await me.getByRole('cell', { name: `pid ${process.pid} (this page)` }).count()).toBe(1);
      await page.getByText(/^No server errors/).waitFor();
      expect(await severe(page)).toEqual([]);

      await failOnce('console-overview-1');
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      const row = recent(page)
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: 'console-overview-1' }) });
      await row.waitFor();
      expect(await row.getByRole('cell').allInnerTexts()).toEqual(
        expect.arrayContaining(['models', 'POST /proxy/api/v1/azure/openai/deployments/:model/chat/completions']),
      );
      await page.getByRole('status').filter({ hasText: '1 new server error.' }).waitFor();
      await page.getByText('1 of 1 shown').waitFor();
      expect(await page.content()).not.toContain(f.values.api_key);
      expect(await severe(page)).toEqual([]);

      // Automatic refresh can be paused, and the page stays where it was.
      const auto = page.getByRole('checkbox', { name: 'Refresh every 10 s' });
      expect(await auto.isChecked()).toBe(true);
      await auto.uncheck();
      expect(await auto.isChecked()).toBe(false);
      await row.waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a phone, the tables are cards that fit the screen', async () => {
    await failOnce('console-overview-2');
    const { page, context, errors } = await f.asAdmin({ phone: true });
    try {
      await recent(page).getByRole('cell', { name: 'console-overview-2' }).waitFor();
      await services(page).getByRole('cell', { name: 'Ready', exact: true }).first().waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a realm administrator the services, not the replicas or the errors', async () => {
    const { page, context, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'ora', 'ora-password-1', 'overview-console');
      await services(page).getByRole('cell', { name: 'Ready', exact: true }).first().waitFor();
      expect(await services(page).getByRole('row').count()).toBe(5);
      expect(await page.getByRole('heading', { name: 'Replicas' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Recent errors' }).count()).toBe(0);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
