import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Audit page (#/audit) in Chromium: a platform administrator sees the events the
 * graph's `auditEvents` answers, newest first, filters them by type prefix, outcome and time, opens
 * an event's details; a realm administrator sees only its realm's events; a plain user has no such
 * page. axe-core finds nothing serious, no console error, nothing wider than a phone.
 */
jest.setTimeout(180_000);

describeConsole('the console: audit', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;
  let admin: string;

  const login = async (realm: string, username: string, password: string) =>
    fetch(`${f.platform.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ realm, username, password }),
    });
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

  beforeAll(async () => {
    f = await consoleFixture();
    values = f.values;
    const res = await login(values.realm, values.admin_username, values.admin_password);
    admin = ((await res.json()) as { access_token: string }).access_token;
    // Setup over the graph: a user made (user.create), and a wrong password for it (login.failure).
    await gql(`mutation ($realm: ID!, $input: AdminCreateUserInput!) { adminCreateUser(realm: $realm, input: $input) { id } }`, {
      realm: values.realm,
      input: { username: 'audit-bob', password: 'audit-bob-password-1', roles: [] },
    });
    expect((await login(values.realm, 'audit-bob', 'not-the-password')).status).toBeGreaterThanOrEqual(400);
    // More user.create events than a page holds (50), for "Load more".
    const many = Array.from(
      { length: 50 },
      (_, i) => `u${i}: adminCreateUser(realm: $realm, input: { username: "audit-u${i}", password: "audit-u-password-1" }) { id }`,
    );
    // (five to an operation: the graph's limit of mutations per request)
    for (let i = 0; i < many.length; i += 5)
      await gql(`mutation ($realm: ID!) { ${many.slice(i, i + 5).join(' ')} }`, { realm: values.realm });
  }, 120_000);
  afterAll(() => f?.stop());

  const column = (page: Page, n: number) => page.locator(`table.audit-table tbody tr td:nth-child(${n})`).allInnerTexts();
  const apply = (page: Page) => page.getByRole('button', { name: 'Apply filters' }).click();

  it('a platform administrator sees the events newest first, filters them, and opens one', async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await page.getByRole('link', { name: 'Audit' }).click();
      await page.getByRole('heading', { name: 'Audit' }).waitFor();
      await page.getByRole('cell', { name: 'user.create', exact: true }).first().waitFor();
      await page.getByRole('cell', { name: 'login.success', exact: true }).first().waitFor();
      expect(await severe(page)).toEqual([]);

      // The page shows what the graph answers, newest first.
      const newest = (await gql(`{ auditEvents(first: 50) { items { id type time } } }`)).auditEvents.items as {
        type: string;
        time: string;
      }[];
      const types = await column(page, 2);
      expect(types.slice(0, 5)).toEqual(newest.slice(0, 5).map((e) => e.type));
      const times = newest.map((e) => Date.parse(e.time));
      expect([...times].sort((a, b) => b - a)).toEqual(times);

      // A type prefix: user events only.
      await page.getByLabel('Type (exact, or a prefix ending in “.”)').fill('user.');
      await apply(page);
      await page.getByRole('cell', { name: 'login.success', exact: true }).first().waitFor({ state: 'detached' });
      // (the table empties while the filtered page loads: wait for its rows, not only the old ones gone)
      await page.getByRole('cell', { name: 'user.create', exact: true }).first().waitFor();
      const users = await column(page, 2);
      expect(users.length).toBeGreaterThan(0);
      expect(users.every((t) => t.startsWith('user.'))).toBe(true);
      expect(await column(page, 5)).toContain('user audit-u49');

      // Failures only: the wrong password, with its reason in the details.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('cell', { name: 'login.success', exact: true }).first().waitFor();
      await page.getByLabel('Outcome').selectOption('failure');
      await apply(page);
      await page.getByRole('cell', { name: 'login.success', exact: true }).first().waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: 'login.failure', exact: true }).first().waitFor();
      expect(new Set(await column(page, 3))).toEqual(new Set(['failure']));
      const row = page.locator('table.audit-table tbody tr', { hasText: 'login.failure' }).first();
      await row.locator('summary').focus();
      await page.keyboard.press('Enter');
      await row.getByText('wrong password, or locked').waitFor();
      expect(await row.locator('details').getAttribute('open')).not.toBeNull();
      expect(await severe(page)).toEqual([]);

      // An exact type, a page at a time: "Load more" appends the next page.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByLabel('Type (exact, or a prefix ending in “.”)').fill('user.create');
      await apply(page);
      await page.getByText('50 events shown').waitFor();
      const more = page.getByRole('button', { name: 'Load more' });
      await more.click();
      await page.getByText(/^\d+ events shown, no more$/).waitFor();
      const created = await column(page, 2);
      expect(created.length).toBeGreaterThan(50);
      expect(new Set(created)).toEqual(new Set(['user.create']));
      const everyOne = await column(page, 5);
      expect(new Set(everyOne).size).toBe(everyOne.length);
      expect(everyOne).toEqual(expect.arrayContaining(['user audit-bob', 'user audit-u0', 'user audit-u49']));
      expect(await more.count()).toBe(0);

      // A time range with nothing in it: the empty state.
      await page.getByLabel('From').fill('2099-01-01T00:00');
      await apply(page);
      await page.getByText('No audit event matches these filters.').waitFor();

      // The realm filter (platform administrators): the default realm's events only.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByLabel('Realm').selectOption(values.realm);
      await apply(page);
      await page.getByRole('cell', { name: 'user.create', exact: true }).first().waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a realm administrator, on a phone, sees only its own realm’s events', async () => {
    const token = f.platform.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'audit-other' });
    await token.admin.createUser({ realm: other.id, username: 'ra', password: 'ra-password-1', roles: ['realm-admin'] });
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'ra', 'ra-password-1', 'audit-other');
      await page.getByRole('link', { name: 'Audit' }).click();
      await page.getByRole('cell', { name: 'login.success', exact: true }).first().waitFor();
      const actors = await column(page, 4);
      expect(actors).toContain('ra (user)');
      expect(actors).not.toContain(`${values.admin_username} (user)`);
      expect(await page.getByText('audit-bob').count()).toBe(0);
      expect(await page.getByLabel('Realm').count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a platform administrator on a phone: a full page of events and an open one fit the screen', async () => {
    const { context, page, errors } = await f.asAdmin({ phone: true });
    try {
      await page.getByRole('link', { name: 'Audit' }).click();
      await page.getByText('50 events shown').waitFor();
      await page.locator('table.audit-table summary').first().click();
      await page.getByText('Event id').first().waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a plain user has no audit page', async () => {
    const { context, page, errors } = await f.open();
    try {
      await f.signIn(page, values.username, values.password);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
      await page.goto(`${f.platform.url}/console/#/audit`);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByRole('heading', { name: 'Audit' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
