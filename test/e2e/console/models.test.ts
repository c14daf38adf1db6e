import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import type { ModelsInstance } from '../../../services/models/instance';
import { fakeChatCatalog } from '../../shared/fakes/fake-chat-catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Models page (#/models) in Chromium: a platform administrator adds an alias of the
 * local model from a catalog entry, sees it listed and answering at the gateway, deactivates it
 * (after a confirmation: the gateway refuses it), is told when the model changed behind the page,
 * reactivates it (it answers again), sees the graph's reason for a bad entry, and tries a prompt
 * with the demo LM key, streamed (chatStream): the text grows as the model writes it, Stop ends the
 * model call, the graph's refusals are shown; a realm administrator, on a phone, reads the catalog
 * with no way to change it; a plain user has no such page. `oc-chat` is a model on a fake
 * OpenAI-compatible upstream, so an answer can pause halfway or stall until Stop.
 */
jest.setTimeout(180_000);

describeConsole('the console: models', () => {
  let f: ConsoleFixture;
  let models: ModelsInstance;
  let upstream: FakeOpenAi;

  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    const catalog = fakeChatCatalog(upstream.url);
    f = await consoleFixture({ MODELS_CATALOG_FILE: catalog.file }).finally(catalog.remove);
    models = f.platform.instances.models as unknown as ModelsInstance;
  }, 120_000);
  afterAll(async () => {
    await f?.stop();
    await upstream?.close();
  });

  /** The Try a prompt form, its key given, `model` chosen and `prompt` sent. */
  const tryPrompt = async (page: Page, key: string, model: string, prompt: string) => {
    const form = page.getByRole('form', { name: 'Try a prompt' });
    await form.getByLabel('LM key (api-key)').fill(key);
    await form.getByLabel('Model').selectOption(model);
    await form.getByLabel('Prompt').fill(prompt);
    await form.getByRole('button', { name: 'Send' }).click();
    return form;
  };

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

      // Try a prompt on local-chat with the demo LM key: the answer streamed, how it ended and its tokens at the end.
      const tryForm = page.getByRole('form', { name: 'Try a prompt' });
      expect(await tryForm.getByLabel('Model').inputValue()).toBe('local-chat');
      await tryPrompt(page, f.values.api_key, 'local-chat', 'Glaciers retreat as summers warm. What do glaciers do?');
      const answer = page.getByRole('region', { name: 'The answer' });
      await answer.getByText('Answer complete.').waitFor();
      expect((await answer.locator('.models-answer-text').innerText()).trim().length).toBeGreaterThan(0);
      await answer.getByText('local-chat', { exact: true }).waitFor();
      expect(await answer.getByText(/^\d+ in, \d+ out$/).count()).toBe(1);
      expect((await page.getByTestId('models-spoken').locator('p').allInnerTexts()).at(-1)).toBe('Answer complete.');
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

  it('Try a prompt streams the answer as it is written, Stop ends the model call, and a refusal is the graph’s', async () => {
    const { page, context, errors } = await f.asAdmin();
    try {
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('cell', { name: 'oc-chat', exact: true }).waitFor();

      // The upstream pauses after two pieces: the page shows the half written answer, then the whole.
      let resume!: () => void;
      upstream.script({
        answer: 'One two three four five six. Seven eight nine ten.',
        pauseAfter: 3,
        resume: new Promise<void>((r) => (resume = r)),
      });
      await tryPrompt(page, f.values.api_key, 'oc-chat', 'Count to ten.');
      const answer = page.getByRole('region', { name: 'The answer' });
      const text = answer.locator('.models-answer-text');
      await text.getByText('One two three four five six.').waitFor();
      expect((await text.innerText()).trim()).toBe('One two three four five six.');
      expect(await answer.getAttribute('aria-busy')).toBe('true');
      expect(await answer.getByText('Finished').count()).toBe(0);
      await page.getByRole('button', { name: 'Stop' }).waitFor();
      expect(await severe(page)).toEqual([]);
      resume();
      await answer.getByText('Answer complete.').waitFor();
      expect((await text.innerText()).trim()).toBe('One two three four five six. Seven eight nine ten.');
      expect(await answer.getAttribute('aria-busy')).toBe('false');
      expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
      await answer.getByText('oc-chat', { exact: true }).waitFor();
      // The screen reader heard it a sentence at a time, then how it ended.
      expect(await page.getByTestId('models-spoken').locator('p').allInnerTexts()).toEqual([
        'One two three four five six.',
        'Seven eight nine ten.',
        'Answer complete.',
      ]);

      // A stalled answer: Stop ends the subscription, and the gateway cuts the model call.
      upstream.script({ answer: 'Eleven twelve thirteen fourteen fifteen sixteen.', stallAfter: 3 });
      await tryPrompt(page, f.values.api_key, 'oc-chat', 'Count on from ten.');
      await text.getByText('Eleven twelve thirteen fourteen fifteen sixteen').waitFor();
      await page.getByRole('button', { name: 'Stop' }).click();
      await upstream.requests.at(-1)!.cut;
      await answer.getByText('Stopped: the model call was ended.').waitFor();
      expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);

      // Refused by the graph: a model the key may not use, then no key at all.
      const { apiKey: localOnly } = await models.keys.create({ name: 'local only', tenant: f.values.tenant_id, models: ['local-chat'] });
      await tryPrompt(page, localOnly, 'oc-chat', 'Count once more.');
      await page.getByRole('alert').filter({ hasText: 'This key may not use the model "oc-chat"' }).waitFor();
      expect(await answer.count()).toBe(0);
      await tryPrompt(page, '', 'local-chat', 'Count once more.');
      await page.getByRole('alert').filter({ hasText: 'send an LM key' }).waitFor();
      await page.getByText('The graph calls models with an LM key: give one above').waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a platform administrator's page fits a phone, a streamed answer too", async () => {
    const { context, page, errors } = await f.asAdmin({ phone: true });
    try {
      await page.getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('cell', { name: 'local-chat', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Edit local-chat' }).waitFor();
      await tryPrompt(page, f.values.api_key, 'local-chat', 'Sea levels rise as ice melts. Why do sea levels rise?');
      await page.getByRole('region', { name: 'The answer' }).getByText('Answer complete.').waitFor();
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
