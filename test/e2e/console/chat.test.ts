import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { docxWith } from '../../core/search/fixtures';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's chat playground (#/chat) in Chromium: the demo user asks with the demo LM key over
 * the graph's answerStream, watches the answer stream with its numbered sources (the document
 * ingested here), asks a follow-up, stops a stalled answer (the model call is cut), attaches a text
 * file, and sees the graph's refusal of a bad key; no serious axe violation, no console error,
 * nothing wider than a phone. `oc-chat` is a model on a fake OpenAI-compatible upstream, so an
 * answer can stall until Stop.
 */
jest.setTimeout(180_000);

const TITLE = 'Alpine glaciers report';

describeConsole('the console: chat playground', () => {
  let f: ConsoleFixture;
  let upstream: FakeOpenAi;
  let values: Record<string, string>;
  let url: string;
  let documentId: string;

  const usage = async (): Promise<{ model: string; requests: number }[]> => {
    const res = await fetch(`${url}/proxy/api/v1/usage`, { headers: { 'api-key': values.api_key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { by_model: { model: string; requests: number }[] }).by_model;
  };
  const requestsOf = async (model: string) => (await usage()).find((m) => m.model === model)?.requests ?? 0;

  beforeAll(async () => {
    upstream = await startFakeOpenAi({ answer: 'The upstream answers.' });
    process.env.E2E_CONSOLE_CHAT_OC_KEY = 'console-chat-oc-token-0123456789';
    const file = join(tmpdir(), `catalog-console-chat-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: {
              provider: 'openai-compatible',
              baseUrl: `${upstream.url}/v1`,
              model: 'llama3.2',
              credentialEnv: 'E2E_CONSOLE_CHAT_OC_KEY',
            },
          },
        ],
      }),
    );
    f = await consoleFixture({ MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    values = f.values;
    url = f.platform.url;
    // The demo client's tenant is the demo user's: the document is theirs to be answered from.
    documentId = await f.addDocument({
      title: TITLE,
      content:
        'Glaciers retreat as the climate warms. Their meltwater raises the sea level. Alpine glaciers lost a tenth of their ice in two years.',
    });
  }, 120_000);
  afterAll(async () => {
    await f?.stop();
    await upstream?.close();
    delete process.env.E2E_CONSOLE_CHAT_OC_KEY;
  });

  it('a plain user asks with the demo key, watches the answer stream with its numbered source, and asks a follow-up', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await page.getByRole('link', { name: 'Chat' }).click();
      await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
      // A plain user (search:read, search:write) has the playground, not the administration.
      expect(await page.getByRole('link', { name: 'Realms' }).count()).toBe(0);
      await page.getByText('No question asked yet.').waitFor();
      expect(await severe(page)).toEqual([]);
      const before = await requestsOf('local-chat');

      await page.getByLabel('LM key (api-key)').fill(values.api_key);
      await page.getByLabel('Question', { exact: true }).fill('Why do glaciers retreat?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const first = page.locator('.chat-turn').nth(0);
      await first.getByText('Model local-chat.', { exact: false }).waitFor();
      await page.getByRole('button', { name: 'New conversation' }).waitFor();
      const answer = await first.locator('.chat-answer').innerText();
      expect(answer.length).toBeGreaterThan(10);
      const sources = first.getByRole('list').last();
      const source = sources.getByRole('listitem').first();
      expect(await source.getAttribute('value')).toBe('1');
      expect(await source.locator('.chat-source-title').innerText()).toBe(TITLE);
      await source.getByText('Passage').click();
      await source.getByText('Glaciers retreat as the climate warms.').waitFor();
      // The screen reader's region had the answer sentence by sentence, then its end.
      const spoken = await page.getByTestId('chat-spoken').locator('p').allInnerTexts();
      expect(spoken.slice(-2)).toEqual(['Answer complete.', 'One source listed.']);
      expect(spoken.slice(0, -2).every((line) => /\w\w.*[.!?]/.test(line))).toBe(true);
      expect(spoken.join(' ')).toContain(answer.trim().split(/(?<=[.!?])\s/)[0]);
      // The key is the tab's only, never in the address or the page's text.
      expect(await page.evaluate("sessionStorage.getItem('console:lm-key')")).toBe(values.api_key);
      expect(await page.locator('body').innerText()).not.toContain(values.api_key);
      expect(await severe(page)).toEqual([]);

      await page.getByLabel('Follow-up question').fill('How much ice did they lose?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const second = page.locator('.chat-turn').nth(1);
      await second.getByText('Model local-chat.', { exact: false }).waitFor();
      expect(await second.getByRole('heading', { level: 3 }).innerText()).toContain('How much ice did they lose?');
      expect(await second.locator('.chat-source-title').first().innerText()).toBe(TITLE);
      // The follow-up was rewritten from the conversation (history) before the search.
      expect(await second.getByText('Searched for').innerText()).toMatch(/Searched for “.+”/);
      expect(await requestsOf('local-chat')).toBeGreaterThanOrEqual(before + 2);

      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByText('No question asked yet.').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a source's title links to its document, which opens on the Documents page with its passages", async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await page.getByRole('link', { name: 'Chat' }).click();
      await page.getByLabel('LM key (api-key)').fill(values.api_key);
      await page.getByLabel('Question', { exact: true }).fill('Why do glaciers retreat?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const link = page.locator('.chat-turn').first().getByRole('link', { name: TITLE });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(`#/documents/${documentId}`);
      await link.click();
      await page.getByRole('heading', { name: TITLE, level: 2 }).waitFor();
      expect(new URL(page.url()).hash).toBe(`#/documents/${documentId}`);
      expect(await page.getByRole('link', { name: 'Documents', exact: true }).getAttribute('aria-current')).toBe('page');
      await page.locator('.doc-passage').getByText('Glaciers retreat as the climate warms.', { exact: false }).waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('Stop completes the subscription (the model call is cut midway); a cut answer is continued; a bad key is refused with an alert', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await page.goto(`${url}/console/#/chat`);
      await page.getByLabel('LM key (api-key)').fill(values.api_key);
      await page.getByLabel('Model (optional)').fill('oc-chat');
      upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
      await page.getByLabel('Question', { exact: true }).fill('Count for me.');
      await page.getByRole('button', { name: 'Ask' }).click();
      await page.locator('.chat-answer').getByText('One two three').waitFor();
      await page.getByRole('button', { name: 'Stop' }).click();
      await upstream.requests.at(-1)!.cut;
      await page.getByText('Stopped.').first().waitFor();
      expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);

      // An answer cut at its length limit is continued ($continue_answer with the answer so far) into the same turn.
      // (A new conversation: a follow-up's rewrite into a standalone question would call the model first.)
      await page.getByRole('button', { name: 'New conversation' }).click();
      upstream.script({ answer: 'Glaciers retreat because', finishReason: 'length' });
      await page.getByLabel('Question', { exact: true }).fill('Why, in one word?');
      await page.getByRole('button', { name: 'Ask' }).click();
      // (the next answer scripted before the click: the continuation's call may reach the upstream at once)
      const more = page.getByRole('button', { name: 'Continue the answer' });
      await more.waitFor();
      upstream.script({ answer: ' the climate warms.' });
      await more.click();
      const continued = page.locator('.chat-turn').nth(0);
      await continued.locator('.chat-answer').getByText('Glaciers retreat because the climate warms.').waitFor();
      expect(JSON.stringify(upstream.requests.at(-1)!.json?.messages)).toContain('Glaciers retreat because');

      await page.getByLabel('LM key (api-key)').fill('not-a-key');
      await page.getByLabel('Model (optional)').fill('');
      await page.getByLabel('Follow-up question').fill('Why do glaciers retreat?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const alert = page.locator('.chat-turn').nth(1).getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/key|authenticat/i);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a phone, a plain user attaches a text file and a Word file and the answer cites them; nothing is wider than the screen', async () => {
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, values.username, values.password);
      await page.getByRole('link', { name: 'Chat' }).click();
      await page.getByLabel('LM key (api-key)').fill(values.api_key);
      await page.getByLabel('Attach files').setInputFiles([
        {
          name: 'heron-notes.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('The grey heron nests in tall trees near the lake. Herons eat fish and frogs.'),
        },
        {
          name: 'heron-diet.docx',
          mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          buffer: await docxWith(['Herons also eat voles and insects in the marsh.']),
        },
      ]);
      await page.getByLabel('Question', { exact: true }).fill('What does the heron eat?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const turn = page.locator('.chat-turn').first();
      await turn.getByText('Model local-chat.', { exact: false }).waitFor();
      const attached = turn.getByRole('listitem').filter({ hasText: 'attached file' });
      await attached.first().waitFor();
      expect((await attached.allInnerTexts()).join(' ')).toContain('heron-notes.txt');
      await page.getByText('attached: heron-notes.txt, heron-diet.docx', { exact: false }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
