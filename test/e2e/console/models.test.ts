import type { TokenCore } from '../../../core/token';
import type { ModelsInstance } from '../../../services/models/instance';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Models page (#/models) in Chromium: a platform administrator adds an alias of the
 * local model from a catalog entry, sees it listed and answering at the gateway, deactivates it
 * (after a confirmation: the gateway refuses it), is told when the model changed behind the page,
 * reactivates it (it answers again), sees the graph's reason for a bad entry, and tries a prompt
 * with the demo LM key; a realm administrator, on a phone, reads the catalog with no way to change
 * it; a plain user has no such page.
 */
jest.setTimeout(180_000);

describeConsole('the console: models', () => {
  let f: ConsoleFixture;
  let models: ModelsInstance;

  beforeAll(async () => {
    f = await consoleFixture();
    models = f.platform.instances.models as unknown as ModelsInstance;
  }, 120_000);
  afterAll(() => f?.stop());

  /** What the gateway answers the demo key calling `model`. */
  const call = async (model: string) => {
    const res = await fetch(`${f.platform.url}/proxy/api/v1/azure/openai/deployments/${model}/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': `${f.values.api_key}/{"is_cache":0}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    });
    return { status: res.status, text: await res.text() };
  };
  const stateOf = async (id: string) => {
    await models.live.refresh();
    return models.live.current().byId.get(id);
  };

  it('a platform administrator adds, deactivates and reactivates a model, sees a bad entry refused and tries a prompt', async () => {
    const { page, context, errors } = await f.asAdmin();
    try {
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
      const row = (id: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: id, exact: true }) });
      await row('local-chat').waitFor();
      expect(await row('local-chat').getByRole('cell').allInnerTexts()).toEqual(
        expect.arrayContaining(['local-chat', 'chat', 'local', 'file', 'active', (8192).toLocaleString('en-US')]),
      );
      expect(await severe(page)).toEqual([]);

      // Add an alias of the local model with the example entry the form starts with.
      const form = page.getByRole('form', { name: 'Add or replace a model' });
      expect(JSON.parse(await form.getByLabel('Catalog entry (JSON)').inputValue())).toEqual({
        group: 'A',
        kind: 'chat',
        upstream: { provider: 'local' },
        contextLength: 8192,
      });
      await form.getByLabel('Model id').fill('console-alias');
      await form.getByRole('button', { name: 'Save model' }).click();
      await page.getByText('Model console-alias saved (version 1); it is active.').waitFor();
      await row('console-alias').getByRole('cell', { name: 'active', exact: true }).waitFor();
      expect(await row('console-alias').getByRole('cell', { name: 'admin', exact: true }).count()).toBe(1);
      expect(await stateOf('console-alias')).toMatchObject({ active: true, source: 'admin', version: 1 });
      expect((await call('console-alias')).status).toBe(200);
      expect(await severe(page)).toEqual([]);

      // Deactivate asks first; Cancel leaves it alone.
      await page.getByRole('button', { name: 'Deactivate console-alias' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Deactivate console-alias' }).click();
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Yes, deactivate' }).click();
      await page.getByText('console-alias deactivated: calls to it are refused until it is reactivated.').waitFor();
      await row('console-alias').getByRole('cell', { name: 'deactivated', exact: true }).waitFor();
      expect(await stateOf('console-alias')).toMatchObject({ active: false, version: 2 });
      const refused = await call('console-alias');
      expect(refused.status).toBe(404);
      expect(refused.text).toMatch(/model_deactivated/);

      // The filters: the models not active.
      await page.getByLabel('State').selectOption('inactive');
      await page.getByRole('cell', { name: 'local-chat', exact: true }).waitFor({ state: 'detached' });
      await row('console-alias').waitFor();
      await page.getByLabel('Source').selectOption('file');
      await page.getByText('No model matches these filters.').waitFor();
      await page.getByLabel('Source').selectOption('');
      await page.getByLabel('State').selectOption('all');
      await row('local-chat').waitFor();

      // Changed behind the page: Reactivate at the version read is refused, Reload reads it again.
      const entry = (await stateOf('console-alias'))!.model;
      await models.live.write({ id: 'console-alias', entry, active: false, at: Date.now(), by: 'the test' }, 'any', 1);
      expect((await stateOf('console-alias'))!.version).toBe(3);
      await page.getByRole('button', { name: 'Reactivate console-alias' }).click();
      await page.getByText('Changed by someone else since you read it: reload, then make your change again.').waitFor();
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.getByRole('button', { name: 'Reactivate console-alias' }).click();
      await page.getByText('console-alias reactivated.').waitFor();
      await row('console-alias').getByRole('cell', { name: 'active', exact: true }).waitFor();
      expect(await stateOf('console-alias')).toMatchObject({ active: true, version: 4 });
      expect((await call('console-alias')).status).toBe(200);

      // Edit fills the form with the model's entry; a bad entry shows the graph's reason.
      await page.getByRole('button', { name: 'Edit console-alias' }).click();
      expect(await form.getByLabel('Model id').inputValue()).toBe('console-alias');
      expect(JSON.parse(await form.getByLabel('Catalog entry (JSON)').inputValue())).toMatchObject({
        group: 'A',
        kind: 'chat',
        upstream: { provider: 'local' },
        contextLength: 8192,
        status: 'Active',
      });
      await form
        .getByLabel('Catalog entry (JSON)')
        .fill('{"group":"Z","kind":"chat","upstream":{"provider":"local"},"contextLength":8192}');
      await form.getByRole('button', { name: 'Save model' }).click();
      await form
        .getByRole('alert')
        .getByText(/the catalog entry: group/)
        .waitFor();
      await form.getByLabel('Catalog entry (JSON)').fill('{"group":');
      await form.getByRole('button', { name: 'Save model' }).click();
      await form
        .getByRole('alert')
        .getByText(/The entry is not JSON/)
        .waitFor();
      expect(await stateOf('console-alias')).toMatchObject({ active: true, version: 4 });
      expect(await severe(page)).toEqual([]);

      // Try a prompt on local-chat with the demo LM key: the whole answer.
      const tryForm = page.getByRole('form', { name: 'Try a prompt' });
      await tryForm.getByLabel('LM key (api-key)').fill(f.values.api_key);
      expect(await tryForm.getByLabel('Model').inputValue()).toBe('local-chat');
      await tryForm.getByLabel('Prompt').fill('Glaciers retreat as summers warm. What do glaciers do?');
      await tryForm.getByRole('button', { name: 'Send' }).click();
      const answer = page.getByRole('region', { name: 'The answer' });
      await answer.waitFor();
      expect((await answer.locator('.models-answer-text').innerText()).trim().length).toBeGreaterThan(0);
      await answer.getByText('local-chat', { exact: true }).waitFor();
      await page.getByText('The answer has come.').waitFor();
      expect(await severe(page)).toEqual([]);

      // A bad key: the graph's refusal.
      await tryForm.getByLabel('LM key (api-key)').fill('lmk-not-a-key');
      await tryForm.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('alert').filter({ hasText: 'the api-key is not valid' }).waitFor();
      expect(await answer.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a realm administrator, on a phone, reads the catalog with no write controls', async () => {
    const token = f.platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'models-other' });
    await token.admin.createUser({ realm: other.id, username: 'mra', password: 'mra-password-1', roles: ['realm-admin'] });
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'mra', 'mra-password-1', 'models-other');
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
      await page.getByRole('cell', { name: 'local-chat', exact: true }).waitFor();
      await page.getByText(/for platform administrators only/).waitFor();
      expect(await page.getByRole('form', { name: 'Add or replace a model' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^(Deactivate|Reactivate|Edit)/ }).count()).toBe(0);
      expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a platform administrator's page fits a phone", async () => {
    const { context, page, errors } = await f.asAdmin({ phone: true });
    try {
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('cell', { name: 'local-chat', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Edit local-chat' }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a plain user has no Models page', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, f.values.username, f.values.password);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('link', { name: 'Models', exact: true }).count()).toBe(0);
      await page.goto(`${f.platform.url}/console/#/models`);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Models', level: 1 }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
