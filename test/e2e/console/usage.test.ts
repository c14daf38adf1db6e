import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import type { TokenCore } from '../../../core/token';
import type { ModelsInstance } from '../../../services/models/instance';
import { eventually } from '../../shared/wait';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Usage page (#/usage) in Chromium: calls made with model keys (the demo key, and
 * one call for each of more keys than a page of the graph's `adminUsage` holds) show in the charts
 * (three canvases with a text alternative: requests, tokens and cost in US dollars, the local chat
 * model priced here so its calls cost something), the totals by model, key and tenant, and the CSV
 * download (a blob: link) holds every row the graph answers, read page after page. A realm
 * administrator of another realm sees none of them; a plain user has no such page. axe-core finds
 * nothing serious, no console error, nothing wider than a phone.
 */
jest.setTimeout(240_000);

const BULK_TENANT = 'usage-bulk';
const BULK_KEYS = 205;

interface Row {
  day: string;
  tenantId: string;
  keyId: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  wordsSent: number;
  wordsReceived: number;
  cacheHits: number;
  errors: number;
  cost: number;
}

describeConsole('the console: usage', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;
  let admin: string;
  let demo: { id: string; name: string; prefix: string; tenantId: string };

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${f.platform.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  /** Every row of the graph's adminUsage for these filters, page after page. */
  const allRows = async (vars: Record<string, string> = {}): Promise<Row[]> => {
    const rows: Row[] = [];
    let after: string | undefined;
    do {
      const page = (
        await gql(
          `query ($tenant: ID, $model: String, $after: String) { adminUsage(tenant: $tenant, model: $model, first: 200, after: $after) {
            items { day tenantId keyId model requests inputTokens outputTokens wordsSent wordsReceived cacheHits errors cost } nextCursor } }`,
          { ...vars, after },
        )
      ).adminUsage;
      rows.push(...page.items);
      after = page.nextCursor ?? undefined;
    } while (after);
    return rows;
  };
  const chat = (apiKey: string) =>
    fetch(`${f.platform.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': `${apiKey}/{"is_cache":0}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    }).then((res) => res.status);

  beforeAll(async () => {
    // The built-in local chat model is free; priced here so the cost chart has something to draw.
    const catalog = join(tmpdir(), `catalog-console-usage-${process.pid}-${Date.now()}.json`);
    const models = DEFAULT_CATALOG.models.map((m) =>
      m.id === 'local-chat' ? { ...m, price: { inputPerMillion: 1000, outputPerMillion: 2000 } } : m,
    );
    writeFileSync(catalog, JSON.stringify({ models }));
    f = await consoleFixture({ MODELS_CATALOG_FILE: catalog }).finally(() => rmSync(catalog, { force: true }));
    values = f.values;
    const res = await fetch(`${f.platform.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ realm: values.realm, username: values.admin_username, password: values.admin_password }),
    });
    admin = ((await res.json()) as { access_token: string }).access_token;
    demo = (await gql(`{ adminModelKeys(q: "demo") { items { id name prefix tenantId } } }`)).adminModelKeys.items[0];

    // Test setup only (the page reads the graph): three calls with the demo key, and one call with
    // each of BULK_KEYS keys of another tenant, so that its rows fill more than one page of 200.
    expect(await Promise.all([1, 2, 3].map(() => chat(values.api_key)))).toEqual([200, 200, 200]);
    const gateway = f.platform.instances.models as unknown as ModelsInstance;
    const keys: string[] = [];
    for (let i = 0; i < BULK_KEYS; i++) keys.push((await gateway.keys.create({ name: `bulk-${i}`, tenant: BULK_TENANT })).apiKey);
    for (let i = 0; i < keys.length; i += 25) {
      const statuses = await Promise.all(keys.slice(i, i + 25).map(chat));
      expect(statuses.every((s) => s === 200)).toBe(true);
    }
    await eventually(async () => {
      const bulk = await allRows({ tenant: BULK_TENANT });
      const mine = (await allRows({ tenant: demo.tenantId })).filter((r) => r.keyId === demo.id);
      return bulk.length === BULK_KEYS && mine.reduce((s, r) => s + r.requests, 0) >= 3;
    }, 60_000);
  }, 200_000);
  afterAll(() => f?.stop());

  const summary = (page: Page) => page.locator('p.usage-summary');
  /** The totals table's row for `name`: its cells' texts (requests first), once it shows. */
  const totals = async (page: Page, name: string) => {
    const header = page.getByRole('rowheader', { name, exact: true });
    await header.waitFor();
    return page.locator('table.usage-totals tbody tr').filter({ has: header }).locator('td').allInnerTexts();
  };
  const fmt = (n: number) => n.toLocaleString('en-US');
  /** Downloads the CSV through the page's link; its lines, the header first. */
  const download = async (page: Page): Promise<string[]> => {
    const link = page.getByRole('link', { name: /^Download CSV/ });
    expect(await link.getAttribute('href')).toMatch(/^blob:/);
    const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(file.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    return readFileSync(await file.path(), 'utf8')
      .trimEnd()
      .split('\r\n');
  };
  const csvLine = (r: Row) =>
    [
      r.day,
      r.tenantId,
      r.keyId,
      r.model,
      r.requests,
      r.inputTokens,
      r.outputTokens,
      r.wordsSent,
      r.wordsReceived,
      r.cacheHits,
      r.errors,
      r.cost,
    ].join(',');

  it('a platform administrator sees the calls in charts and totals by model, key and tenant, filters them, and downloads every row as CSV', async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await page.getByRole('link', { name: 'Usage' }).click();
      await page.getByRole('heading', { name: 'Usage' }).waitFor();
      await summary(page).waitFor();
      const rows = await allRows();
      expect(rows.length).toBeGreaterThan(200);
      const sum = (rs: Row[]) => rs.reduce((s, r) => s + r.requests, 0);

      // Three charts drawn on canvases, each with a text alternative; the totals table says the numbers.
      expect(await page.locator('.chart-canvas canvas').count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator('.chart-canvas canvas').first().isVisible()).toBe(true);
      await page.getByRole('img', { name: /^Line chart of requests per day by model/ }).waitFor();
      await page.getByRole('img', { name: /^Line chart of tokens/ }).waitFor();
      // Spend per day in US dollars: its text alternative and the summary say the range's cost, the table each model's.
      const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
      const cost = (rs: Row[]) => rs.reduce((s, r) => s + r.cost, 0);
      expect(cost(rows)).toBeGreaterThan(0);
      const costChart = page.getByRole('img', { name: /^Line chart of cost in US dollars per day by model/ });
      expect(await costChart.getAttribute('aria-label')).toContain(`${money.format(cost(rows))} in all`);
      expect(await summary(page).innerText()).toContain(`tokens and ${money.format(cost(rows))}`);
      expect(await summary(page).innerText()).toContain(`${fmt(sum(rows))} requests`);
      expect(await summary(page).innerText()).toContain(`(${fmt(rows.length)} rows)`);
      const chats = rows.filter((r) => r.model === 'local-chat');
      expect((await totals(page, 'local-chat'))[0]).toBe(fmt(sum(chats)));
      expect((await totals(page, 'local-chat'))[4]).toBe(money.format(cost(chats)));
      expect(await page.getByRole('table', { name: /^Totals by model/ }).count()).toBe(1);
      expect(await severe(page)).toEqual([]);

      // By key: the demo key by its name, with its three calls (at least).
      await page.getByLabel('Group by').selectOption('key');
      await page.getByRole('table', { name: /^Totals by key/ }).waitFor();
      const demoRow = await totals(page, `${demo.name} (${demo.prefix}…)`);
      expect(demoRow[0]).toBe(fmt(sum(rows.filter((r) => r.keyId === demo.id))));
      expect(Number(demoRow[0])).toBeGreaterThanOrEqual(3);
      await page.getByRole('img', { name: /^Line chart of requests per day by key/ }).waitFor();
      // More keys than a page of the totals: paged, 25 at a time.
      const keyCount = new Set(rows.map((r) => r.keyId)).size;
      const bodyRows = page.locator('table.usage-totals tbody tr');
      expect(await bodyRows.count()).toBe(25);
      await page.getByText(`Page 1 · 25 of ${keyCount}`).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText(`Page 2 · 25 of ${keyCount}`).waitFor();
      expect(await page.getByRole('rowheader', { name: `${demo.name} (${demo.prefix}…)` }).count()).toBe(0);
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByText(`Page 1 · 25 of ${keyCount}`).waitFor();

      // By tenant: one call per bulk key.
      await page.getByLabel('Group by').selectOption('tenant');
      expect((await totals(page, BULK_TENANT))[0]).toBe(fmt(BULK_KEYS));
      expect((await totals(page, demo.tenantId))[0]).toBe(fmt(sum(rows.filter((r) => r.tenantId === demo.tenantId))));

      // The CSV holds every row the graph answers (more than one page of 200), as the graph has them.
      const lines = await download(page);
      expect(lines[0]).toBe(
        'day,tenant_id,key_id,model,requests,input_tokens,output_tokens,words_sent,words_received,cache_hits,errors,cost',
      );
      expect(lines.slice(1).sort()).toEqual(rows.map(csvLine).sort());

      // Filtered: the bulk tenant's chat calls only.
      const filters = page.getByRole('form', { name: 'Usage filters' });
      await filters.getByLabel('Tenant', { exact: true }).fill(BULK_TENANT);
      await filters.getByLabel('Model', { exact: true }).selectOption('local-chat');
      await filters.getByRole('button', { name: 'Show usage' }).click();
      await page.getByText(`${fmt(BULK_KEYS)} requests`).waitFor();
      const bulk = await download(page);
      expect(bulk.length).toBe(BULK_KEYS + 1);
      expect(bulk.slice(1).every((l) => l.split(',')[1] === BULK_TENANT && l.split(',')[3] === 'local-chat')).toBe(true);

      // A day range with no calls: the empty state.
      await filters.getByLabel('From', { exact: true }).fill('2020-01-01');
      await filters.getByLabel('To', { exact: true }).fill('2020-01-31');
      await filters.getByRole('button', { name: 'Show usage' }).click();
      await page.getByText('No calls from 2020-01-01 to 2020-01-31 match these filters.').waitFor();
      // A range the graph refuses (over 366 days): its error, as an alert.
      await filters.getByLabel('From', { exact: true }).fill('2020-01-01');
      await filters.getByLabel('To', { exact: true }).fill('2022-01-31');
      await filters.getByRole('button', { name: 'Show usage' }).click();
      expect(await page.getByRole('alert').innerText()).toContain('366');
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('on a phone, the charts and the totals fit the screen', async () => {
    const { context, page, errors } = await f.asAdmin({ phone: true });
    try {
      await page.getByRole('link', { name: 'Usage' }).click();
      await summary(page).waitFor();
      await page.locator('.chart-canvas canvas').first().waitFor();
      expect(await fitsWidth(page)).toBe(true);
      // Keys' names are longer: still nothing wider than the screen.
      await page.getByLabel('Group by').selectOption('key');
      await page.getByRole('table', { name: /^Totals by key/ }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a realm administrator of another realm sees none of these calls; a plain user has no usage page', async () => {
    const token = f.platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'usage-other' });
    await token.admin.createUser({ realm: other.id, username: 'ura', password: 'ura-password-1', roles: ['realm-admin'] });
    const ra = await f.open({ phone: true });
    try {
      await f.signIn(ra.page, 'ura', 'ura-password-1', 'usage-other');
      await ra.page.getByRole('link', { name: 'Usage' }).click();
      await ra.page.getByText(/^No calls from .* match these filters\.$/).waitFor();
      expect(await ra.page.getByRole('link', { name: /^Download CSV/ }).count()).toBe(0);
      expect(await fitsWidth(ra.page)).toBe(true);
      expect(await severe(ra.page)).toEqual([]);
      expect(ra.errors).toEqual([]);
    } finally {
      await ra.context.close();
    }
    const user = await f.open();
    try {
      await f.signIn(user.page, values.username, values.password);
      await user.page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await user.page.getByRole('link', { name: 'Usage' }).count()).toBe(0);
      // The fragment alone does not open it either.
      await user.page.goto(`${f.platform.url}/console/#/usage`);
      await user.page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(user.errors).toEqual([]);
    } finally {
      await user.context.close();
    }
  });
});
