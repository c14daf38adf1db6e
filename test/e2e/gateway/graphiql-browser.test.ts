import { rmSync, writeFileSync } from 'node:fs';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { EXAMPLE_DOCUMENT } from '../../../gateway/graphiql';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { chatFixture, type ChatFixture } from '../chat/fixture';

/**
 * The offline GraphiQL (/graphiql) in a real browser: a subscription typed in its editor, with
 * `Authorization` and `api-key` in its header pane, streams an answer over graphql-ws; without
 * them the subscription is refused by the chat subgraph (UNAUTHENTICATED), not by the transport.
 * It opens on a ready example (a note on the headers, then operations that run), and a streamed
 * answer's `answerSoFar` shows the whole answer at the end, where GraphiQL, which shows a
 * subscription's latest event, showed the last piece alone (`"response": ""` with STOP).
 * Needs a Chromium: CHROMIUM_PATH names its executable (skipped otherwise, as the Redis tests are
 * without REDIS_URL). A screenshot of an answer being streamed is left in the temporary folder.
 */
const d = CHROMIUM_PATH ? describe : describe.skip;

const GRAPHIQL_SCREENSHOT = join(tmpdir(), 'graphiql-subscription.png');

const subscription = (model = 'local-chat') => `subscription {
  answerStream(input: { query: "What are the side effects of aspirin?", modelId: "${model}" }) {
    response
    finishReason
    model { id }
  }
}`;

/** What the page's code below touches of the browser (the project compiles without the DOM lib; types are erased). */
interface El {
  textContent: string | null;
  classList: { contains(name: string): boolean };
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
  CodeMirror?: { setValue(text: string): void; getValue(): string };
}
interface InPage {
  document: El;
  seen: string[];
  MutationObserver: new (callback: () => void) => { observe(target: El, options: object): void };
}

/** Sets the text of one of GraphiQL's editors (CodeMirror). */
async function setEditor(page: Page, selector: string, text: string) {
  await page.locator(selector).first().waitFor();
  await page.evaluate(
    ([sel, value]) => {
      (globalThis as unknown as InPage).document.querySelector(sel)!.CodeMirror!.setValue(value);
    },
    [selector, text],
  );
}

/**
 * Puts one operation in the query editor, and waits until GraphiQL has parsed it (100 ms after the
 * change): until then its run button still knows the example's several operations and opens their
 * menu instead of running.
 */
async function setQuery(page: Page, text: string) {
  await setEditor(page, '.graphiql-query-editor .CodeMirror', text);
  await page.locator('.graphiql-execute-button:not([aria-haspopup])').waitFor();
}

/** The text of one of GraphiQL's editors. */
async function editorText(page: Page, selector: string): Promise<string> {
  await page.locator(selector).first().waitFor();
  return page.evaluate((sel) => (globalThis as unknown as InPage).document.querySelector(sel)!.CodeMirror!.getValue(), selector);
}

/** The editor of the tool pane showing now (variables or headers). */
async function toolEditor(page: Page, value?: string): Promise<string> {
  await page.locator('.graphiql-editor-tool .CodeMirror').first().waitFor();
  return page.evaluate((text) => {
    const tools = [...(globalThis as unknown as InPage).document.querySelectorAll('.graphiql-editor-tool .graphiql-editor')];
    const editor = tools.find((e) => !e.classList.contains('hidden'))!.querySelector('.CodeMirror')!.CodeMirror!;
    if (text !== undefined) editor.setValue(text);
    return editor.getValue();
  }, value);
}

/** What the response pane holds now, as JSON. */
const response = async (page: Page) => JSON.parse(await editorText(page, '.graphiql-response .CodeMirror'));

/** Runs the operation named `name` of a document holding several: the run button lists them. */
async function runNamed(page: Page, name: string, until: RegExp): Promise<string[]> {
  return runAndWatch(page, until, async () => {
    await page.locator('.graphiql-execute-button').click();
    await page.getByRole('menuitem', { name }).click();
  });
}

/** Puts the caller's credentials in the header pane. */
async function typeHeaders(page: Page, headers: Record<string, string>) {
  await page.getByRole('button', { name: 'Headers' }).click();
  await page.evaluate(
    (value) => {
      // The header pane is the tool editor that is showing once its tab is chosen.
      const tools = [...(globalThis as unknown as InPage).document.querySelectorAll('.graphiql-editor-tool .graphiql-editor')];
      tools
        .find((e) => !e.classList.contains('hidden'))!
        .querySelector('.CodeMirror')!
        .CodeMirror!.setValue(value);
    },
    JSON.stringify(headers, null, 2),
  );
}

/** Runs the operation (`run`: its button by default) and returns every text the response pane showed, in order, until `until` shows. */
async function runAndWatch(page: Page, until: RegExp, run = () => page.locator('.graphiql-execute-button').click()): Promise<string[]> {
  await page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    w.seen = [];
    const pane = w.document.querySelector('.graphiql-response')!;
    new w.MutationObserver(() => {
      const text = pane.textContent ?? '';
      if (w.seen.at(-1) !== text) w.seen.push(text);
    }).observe(pane, { subtree: true, childList: true, characterData: true });
  });
  await run();
  // The observer saw every text, even one the next event replaced before a poll could see it.
  const seen = () => page.evaluate(() => (globalThis as unknown as InPage).seen);
  try {
    await page.waitForFunction((source) => (globalThis as unknown as InPage).seen.some((t) => new RegExp(source).test(t)), until.source, {
      timeout: 20_000,
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}\nthe response pane showed:\n${(await seen()).join('\n---\n')}`, { cause: err });
  }
  return seen();
}

d('the offline GraphiQL in a browser', () => {
  let f: ChatFixture;
  let upstream: FakeOpenAi;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    process.env.E2E_GRAPHIQL_OC_KEY = 'graphiql-oc-token-0123456789';
    const file = join(tmpdir(), `catalog-graphiql-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 4096,
            upstream: {
              provider: 'openai-compatible',
              baseUrl: `${upstream.url}/v1`,
              model: 'llama3.2',
              credentialEnv: 'E2E_GRAPHIQL_OC_KEY',
            },
          },
        ],
      }),
    );
    f = await chatFixture({ MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await f?.stop();
    await upstream?.close();
    delete process.env.E2E_GRAPHIQL_OC_KEY;
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Offline: anything but the platform itself is refused, so no asset may come from a CDN.
    await page.route(
      (url) => !url.href.startsWith(f.url) && !url.href.startsWith(f.url.replace(/^http/, 'ws')),
      (route) => route.abort(),
    );
    await page.goto(`${f.url}/graphiql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  });
  afterEach(async () => {
    await page?.close();
  });

  it('opens on the example, whose operations run in order: Login with the demo user, then Answer shows the whole answer at the end', async () => {
    const document = await editorText(page, '.graphiql-query-editor .CodeMirror');
    expect(document).toBe(EXAMPLE_DOCUMENT);
    // Sign in with the bar's button (graphiql-signin-browser), or Login and an Authorization header, as here.
    expect(document).toContain('Sign in with the button at the top of the page');
    expect(document).toContain('"Authorization": "Bearer <accessToken>" in the Headers tab');
    expect(document).toContain('{ "api-key": "<api_key>" }');
    expect(document).toContain('npm run -s platform -- credentials');
    // The tool pane opens on the variables, Login's placeholders in them.
    expect(await toolEditor(page)).toMatch(/"username": "<username from data\/bootstrap.json>"/);
    const demo = f.platform.bootstrap!.values;
    await toolEditor(page, JSON.stringify({ username: demo.username, password: demo.password }));
    await runNamed(page, 'Login', /"accessToken":\s*"ey/);
    const accessToken = (await response(page)).data.loginUser.accessToken as string;
    await typeHeaders(page, { Authorization: `Bearer ${accessToken}`, 'api-key': f.apiKey });
    const seen = await runNamed(page, 'Answer', /"finishReason":\s*"STOP"/);
    // The whole answer, as a mutation gets it in one piece, is what the pane shows at the end.
    const whole = await f.call('POST', '/graphql', {
      auth: `Bearer ${accessToken}`,
      headers: { 'api-key': f.apiKey },
      body: { query: 'mutation { generateAnswer(input: { query: "Why do glaciers retreat?" }) { response } }' },
    });
    const answer = whole.body.data.generateAnswer.response as string;
    expect(answer.length).toBeGreaterThan(20);
    expect((await response(page)).data.answerStream).toMatchObject({ answerSoFar: answer, finishReason: 'STOP' });
    expect(seen.length).toBeGreaterThan(1);
  });

  it('a subscription asking for answerSoFar shows the whole answer in the result pane at the end, as the model wrote it', async () => {
    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.' });
    // A question of its own: the model gateway's answer cache would answer another test's from memory.
    await setQuery(
      page,
      subscription('oc-chat')
        .replace('What are the side effects of aspirin?', 'Does aspirin upset the stomach?')
        .replace('response', 'response answerSoFar'),
    );
    await typeHeaders(page, { Authorization: f.a, 'api-key': f.apiKey });
    const seen = await runAndWatch(page, /"finishReason":\s*"STOP"/);
    expect((await response(page)).data.answerStream).toMatchObject({
      response: '',
      answerSoFar: 'One two three four five six seven eight nine ten eleven twelve.',
      finishReason: 'STOP',
    });
    // While it was written, the pane showed the answer growing, not only its newest piece.
    const grown = seen.flatMap((t) => /"answerSoFar":\s*"([^"]*)",\s*"finishReason":\s*null/.exec(t)?.[1] ?? []);
    expect(grown.length).toBeGreaterThan(1);
    grown.forEach((text, i) => i > 0 && expect(text.startsWith(grown[i - 1])).toBe(true));
  });

  it('streams an answer to a subscription whose credentials are typed in the header pane', async () => {
    await setQuery(page, subscription());
    // Named as a person types HTTP headers: they reach the socket's connection_init as typed.
    await typeHeaders(page, { Authorization: f.a, 'Api-Key': f.apiKey });
    const seen = await runAndWatch(page, /"finishReason":\s*"STOP"/);
    const pieces = seen.filter((t) => /"finishReason":\s*null/.test(t));
    expect(pieces.length).toBeGreaterThan(0);
    expect(pieces.join('\n')).toMatch(/"response":\s*"[^"]+/);
    expect(seen.join('\n')).toMatch(/stomach upset/);
    expect(seen.join('\n')).not.toMatch(/SUBSCRIPTIONS_NOT_SUPPORTED|"errors"/);
  });

  it('without credentials the chat subgraph refuses the subscription (UNAUTHENTICATED), over the socket', async () => {
    await setQuery(page, subscription());
    const seen = await runAndWatch(page, /UNAUTHENTICATED/);
    expect(seen.join('\n')).not.toMatch(/SUBSCRIPTIONS_NOT_SUPPORTED/);
    expect(seen.at(-1)).toMatch(/"serviceName":\s*"chat"/);
  });

  it('shows the answer while the model writes it, and its stop button stops the model call', async () => {
    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const seen = upstream.requests.length;
    await setQuery(page, subscription('oc-chat'));
    await typeHeaders(page, { Authorization: f.a, 'api-key': f.apiKey });
    await runAndWatch(page, /"response":\s*"One two three "/);
    await page.screenshot({ path: GRAPHIQL_SCREENSHOT });
    // While a subscription runs, the execute button stops it.
    await page.locator('.graphiql-execute-button').click();
    await upstream.requests[seen].cut;
  });
});
