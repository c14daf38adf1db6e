import { mkdirSync } from 'node:fs';
import { CHROMIUM_PATH, launchChromium } from '../../shared/chromium';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { startInTemp, type Started } from './server';

/**
 * Every service's Swagger page, in headless Chromium, as a newcomer uses it: get a token on the
 * token page, Authorize with it (or the LM key) on the next, "Try it out" on a representative call
 * with the example the page offers, Execute, and see a 200. The pages are opened under a host name
 * that is not PUBLIC_URL's (the calls must go to the page's own origin) and nothing is fetched from
 * anywhere else (offline). Runs when CHROMIUM_PATH names a Chromium (like the Redis suites with
 * REDIS_URL); DOCS_SCREENSHOTS=<dir> keeps a picture of each page.
 */
const d = CHROMIUM_PATH ? describe : describe.skip;
const SHOTS = process.env.DOCS_SCREENSHOTS;

const operation = (page: Page, method: string, path: string) =>
  page.locator(`.opblock-${method}`, { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) }).first();

/** Expands an operation, presses Try it out, lets `fill` change its inputs, executes; the live answer's status and body. */
async function tryIt(page: Page, method: string, path: string, fill: (op: Locator) => Promise<void> = async () => {}) {
  const op = operation(page, method, path);
  await op.locator('.opblock-summary').click();
  await op.locator('button.try-out__btn').click();
  await fill(op);
  await op.locator('button.execute').click();
  const live = op.locator('.live-responses-table tbody .response').first();
  await live.waitFor({ timeout: 240_000 });
  const status = Number((await live.locator('.response-col_status').textContent())?.trim());
  const body = (await live.locator('.response-col_description pre.microlight').first().textContent()) ?? '';
  return { status, body, op };
}

/** The Authorize dialog: one value for the scheme whose input is shown. */
async function authorize(page: Page, value: string) {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('.auth-container input').first().fill(value);
  await dialog.locator('.auth-btn-wrapper button.authorize').first().click();
  await dialog.locator('button.btn-done').first().click();
}

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

d('the docs pages, in a browser: Try it out answers 200 on every service', () => {
  let server: Started;
  let browser: Browser;
  let page: Page;
  let origin: string;
  /** Requests over the network the page made anywhere but its own origin. */
  let elsewhere: string[];
  let creds: Record<string, string>;
  let clientToken = '';
  let userToken = '';

  beforeAll(async () => {
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    server = await startInTemp();
    origin = `http://docs.test:${server.port}`;
    creds = server.bootstrap!.values;
    browser = await launchChromium(['--host-resolver-rules=MAP docs.test 127.0.0.1']);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    elsewhere = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.protocol.startsWith('http') && url.origin !== origin) elsewhere.push(r.url());
    });
  });
  afterEach(async () => {
    await page.close();
    expect(elsewhere).toEqual([]);
  });

  it("token: the token endpoint with a client's id and secret, introspection, the login with a user's, userinfo", async () => {
    await page.goto(`${origin}/auth/api/v1/docs`);
    const client = await tryIt(page, 'post', '/auth/api/v1/oauth/connect/token', async (op) => {
      await op.locator('tr[data-param-name="client_id"] input').fill(creds.client_id);
      await op.locator('tr[data-param-name="client_secret"] input').fill(creds.client_secret);
    });
    expect(client.status).toBe(200);
    clientToken = JSON.parse(client.body).access_token;
    const introspected = await tryIt(page, 'post', '/auth/api/v1/oauth/connect/introspect', async (op) => {
      await op.locator('tr[data-param-name="token"] input').fill(clientToken);
    });
    expect(introspected.status).toBe(200);
    expect(JSON.parse(introspected.body)).toMatchObject({ active: 'true', client_id: creds.client_id });
    const user = await tryIt(page, 'post', '/auth/api/v1/oauth/connect/user/login', async (op) => {
      await op.locator('tr[data-param-name="username"] input').fill(creds.username);
      await op.locator('tr[data-param-name="password"] input').fill(creds.password);
    });
    expect(user.status).toBe(200);
    userToken = JSON.parse(user.body).access_token;
    await authorize(page, userToken);
    const me = await tryIt(page, 'get', '/auth/api/v1/realms/{realm}/protocol/openid-connect/userinfo');
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body)).toMatchObject({ preferred_username: creds.username });
    await shot(page, 'token');
  }, 300_000);

  it('search: Authorize with the client token, add the example object, find it', async () => {
    expect(clientToken).not.toBe('');
    await page.goto(`${origin}/cl/search/api/docs`);
    await authorize(page, clientToken);
    const added = await tryIt(page, 'post', '/cl/search/api/v2/objects');
    expect(added.status).toBe(201);
    const found = await tryIt(page, 'post', '/cl/search/api/v2/search');
    expect(found.status).toBe(200);
    expect(JSON.parse(found.body)).toMatchObject({ message: 'Documents found', result: [expect.objectContaining({ title: 'Glaciers' })] });
    await shot(page, 'search');
  }, 300_000);

  it('models: Authorize with the LM key; chat completion, Gemini and Bedrock on local-chat, each with its path parameters', async () => {
    await page.goto(`${origin}/proxy/api/v1/docs`);
    await authorize(page, creds.api_key);
    const azure = await tryIt(page, 'post', '/proxy/api/v1/azure/openai/deployments/{model}/chat/completions');
    expect(azure.status).toBe(200);
    expect(JSON.parse(azure.body)).toMatchObject({ object: 'chat.completion', model: 'local-chat' });
    const gemini = await tryIt(page, 'post', '/proxy/api/v1/gemini/models/{model}:generateContent');
    expect(gemini.status).toBe(200);
    expect(JSON.parse(gemini.body)).toMatchObject({ modelVersion: 'local-chat', candidates: [expect.anything()] });
    const converse = await tryIt(page, 'post', '/proxy/api/v1/bedrock/model/{modelId}/converse');
    expect(converse.status).toBe(200);
    const nova = await tryIt(page, 'post', '/proxy/api/v1/bedrock/v1/messages/nova');
    expect(nova.status).toBe(200);
    expect(JSON.parse(nova.body)).toMatchObject({ output: { message: { role: 'assistant' } } });
    await shot(page, 'models');
  }, 300_000);

  it('chat: the example body with a user token, its tenant and the LM key in place of its placeholders', async () => {
    expect(userToken).not.toBe('');
    await page.goto(`${origin}/api/docs`);
    const answer = await tryIt(page, 'post', '/api/generate_answer', async (op) => {
      const body = op.locator('textarea.body-param__text');
      const example = await body.inputValue();
      await body.fill(
        example.replace('<access token of a user>', userToken).replace('<tenant id>', creds.tenant_id).replace('<LM key>', creds.api_key),
      );
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ finish_reason: expect.any(String), response: expect.any(String) });
    await shot(page, 'chat');
  }, 300_000);
});
