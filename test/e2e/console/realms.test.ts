import { eventually } from '../../shared/wait';
import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The console's Realms page in Chromium (docs/console.md), over the graph only: a platform
 * administrator creates a realm, a confidential client whose secret is shown once and works at the
 * token endpoint until it is regenerated, a public client with a redirect URI; resets a user's
 * password (the user then signs in with it), unlocks a locked user, ends a browser session, and is
 * told plainly when a user changed under them. A realm administrator, on a phone, sees only its own
 * realm. axe-core finds nothing serious, the console logs no error.
 */
jest.setTimeout(240_000);

describeConsole('the console: realms, clients, users and sessions', () => {
  let f: ConsoleFixture;
  let values: Record<string, string>;
  let token: TokenCore;
  let realm: string;

  beforeAll(async () => {
    // Three wrong passwords lock an account for every address, so the unlock case has a lock to lift.
    f = await consoleFixture({ LOCKOUT_ACCOUNT_THRESHOLD: '3', AUTH_FAILURES_PER_MINUTE: '1000' });
    values = f.values;
    realm = values.realm;
    token = f.platform.instances.token as unknown as TokenCore;
  }, 120_000);
  afterAll(() => f?.stop());

  const url = () => f.platform.url;
  /** A password-grant login's status and access token. */
  const login = async (username: string, password: string, inRealm = realm) => {
    const res = await fetch(`${url()}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ realm: inRealm, username, password }),
    });
    return { status: res.status, token: ((await res.json()) as { access_token?: string }).access_token };
  };
  /** The client-credentials grant's status. */
  const grant = (clientId: string, secret: string) =>
    fetch(`${url()}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ realm, client_id: clientId, client_secret: secret }),
    }).then((r) => r.status);
  const gql = async (bearer: string, query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${url()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: any; errors?: unknown[] };
  };
  const sessionsOf = async (username: string) => {
    const admin = (await login(values.admin_username, values.admin_password)).token!;
    const answer = await gql(admin, `query ($r: ID!, $u: String) { adminSessions(realm: $r, username: $u) { total } }`, {
      r: realm,
      u: username,
    });
    return answer.data.adminSessions.total as number;
  };

  /** The realm picker (its label's text includes its options', so it is found by role). */
  const picker = (page: Page) => page.getByRole('combobox', { name: /^Realm/ });
  const toRealms = async (page: Page) => {
    await page.getByRole('link', { name: 'Realms' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
  };

  it('clients: a confidential one with its secret shown once (works, then regenerated: the old one refused), a public one, disabled', async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url() });
      await toRealms(page);
      await page.getByRole('tab', { name: 'Clients' }).click();
      await page.getByRole('heading', { name: 'Clients' }).waitFor();
      await page.getByRole('cell', { name: 'platform-console', exact: true }).waitFor();
      expect(await severe(page)).toEqual([]);

      const create = page.getByRole('form', { name: 'Create a client' });
      await create.getByLabel('Client ID').fill('ops-app');
      await create.getByLabel('Roles (comma-separated)').fill('search:read');
      await create.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('https://ops.example/cb\n\n https://ops.example/cb2 ');
      await create.getByRole('button', { name: 'Create client' }).click();
      await page.getByText('Client ops-app created.').waitFor();
      const field = page.getByLabel('Client secret of ops-app');
      const secret = await field.inputValue();
      expect(secret).toMatch(/^.{16,}$/);
      expect(await field.getAttribute('readonly')).not.toBeNull();
      await page.getByText('it will not be shown again').waitFor();
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByLabel('Client secret of ops-app').count()).toBe(0);
      expect(await grant('ops-app', secret)).toBe(200);
      const made = (await token.admin.listClients(realm)).find((c) => c.clientId === 'ops-app');
      expect(made).toMatchObject({
        public: false,
        roles: ['search:read'],
        redirectUris: ['https://ops.example/cb', 'https://ops.example/cb2'],
      });

      // Regenerated with a confirmation: the new secret once, the old one refused at once.
      await page.getByRole('button', { name: 'Manage ops-app' }).click();
      await page.getByRole('heading', { name: 'Client ops-app' }).waitFor();
      expect(await page.getByText(secret).count()).toBe(0);
      await page.getByRole('button', { name: 'Regenerate secret' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Regenerate secret' }).click();
      await page.getByRole('button', { name: 'Regenerate', exact: true }).click();
      const again = await page.getByLabel('New client secret of ops-app').inputValue();
      expect(again).not.toBe(secret);
      await page.getByText('ops-app has a new secret; the old one no longer works.').waitFor();
      expect(await grant('ops-app', secret)).toBe(401);
      expect(await grant('ops-app', again)).toBe(200);
      expect(await severe(page)).toEqual([]);

      // Its settings at the version read; then disabled, and its secret no longer gets a token.
      const edit = page.getByRole('form', { name: 'Edit ops-app' });
      await edit.getByLabel('Web origins (one per line)').fill('https://ops.example');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved ops-app.').waitFor();
      await page.getByRole('button', { name: 'Disable client' }).click();
      await page.getByText('ops-app disabled; its sessions ended.').waitFor();
      await page.getByRole('button', { name: 'Enable client' }).waitFor();
      expect(await grant('ops-app', again)).not.toBe(200);
      expect((await token.admin.listClients(realm)).find((c) => c.clientId === 'ops-app')).toMatchObject({
        enabled: false,
        webOrigins: ['https://ops.example'],
      });

      // A public client: no secret, its redirect URI kept.
      await create.getByLabel('Client ID').fill('spa-app');
      await create.getByLabel('Public client').check();
      await create.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('https://spa.example/cb');
      await create.getByRole('button', { name: 'Create client' }).click();
      await page.getByText('Client spa-app created (public: no secret).').waitFor();
      expect(await page.getByLabel('Client secret of spa-app').count()).toBe(0);
      await page.getByRole('cell', { name: 'spa-app', exact: true }).waitFor();
      expect((await token.admin.listClients(realm)).find((c) => c.clientId === 'spa-app')).toMatchObject({
        public: true,
        redirectUris: ['https://spa.example/cb'],
      });
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('users: a new password the user signs in with, an unlock, a browser session ended, and a stale edit said plainly', async () => {
    await token.admin.createUser({ realm, username: 'dave', password: 'dave-password-1', roles: ['search:read'] });
    const { context, page, errors } = await f.asAdmin();
    try {
      await toRealms(page);
      await page.getByLabel('Find a user').fill('dave');
      await page.getByRole('button', { name: 'Manage dave' }).click();
      await page.getByRole('heading', { name: 'User dave' }).waitFor();

      // A new password: the user signs in with it (on the login page, a browser session), the old one refused.
      const reset = page.getByRole('form', { name: 'Reset the password of dave' });
      await reset.getByLabel('New password').fill('dave-password-2');
      await reset.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('New password set for dave; 0 sessions ended.').waitFor();
      expect((await login('dave', 'dave-password-1')).status).toBe(401);
      const dave = await f.open();
      try {
        await f.signIn(dave.page, 'dave', 'dave-password-2');
        expect(dave.errors).toEqual([]);
      } finally {
        await dave.context.close();
      }

      // That browser session is listed with dave, and ended.
      await page.getByRole('button', { name: 'Close user dave' }).click();
      await page.getByRole('button', { name: 'Manage dave' }).click();
      const end = page.getByRole('button', { name: /^End the session of dave/ });
      await end.waitFor();
      expect(await sessionsOf('dave')).toBe(1);
      expect(await severe(page)).toEqual([]);
      await end.click();
      await page.getByText('Session of dave ended.').waitFor();
      await page.getByText('No open session of dave.').waitFor();
      expect(await sessionsOf('dave')).toBe(0);

      // Locked by wrong passwords at the login endpoint; Unlock; then the password works again.
      for (let i = 0; i < 3; i++) await login('dave', `wrong-${i}`);
      expect((await login('dave', 'dave-password-2')).status).not.toBe(200);
      await page.getByRole('button', { name: 'Close user dave' }).click();
      await page.getByRole('button', { name: 'Manage dave' }).click();
      await page.getByRole('button', { name: 'Unlock' }).click();
      await page.getByText('dave unlocked.').waitFor();
      expect(await page.getByRole('button', { name: 'Unlock' }).count()).toBe(0);
      expect((await login('dave', 'dave-password-2')).status).toBe(200);

      // Roles as a comma list, at the version read.
      const edit = page.getByRole('form', { name: 'Edit dave' });
      await edit.getByLabel('Roles (comma-separated)').fill('search:read, search:write');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved dave.').waitFor();
      expect((await token.store.users.get(realm, 'dave'))?.roles).toEqual(['search:read', 'search:write']);

      // Someone else changes dave: saving from the old version is refused, plainly, until reloaded.
      await token.admin.updateUser(realm, 'dave', { email: 'dave@example.com' });
      await edit.getByLabel('Roles (comma-separated)').fill('search:read');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').getByText('Changed by someone else since you read it').waitFor();
      expect((await token.store.users.get(realm, 'dave'))?.roles).toEqual(['search:read', 'search:write']);
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Reload' }).click();
      // The reload is a query: its answer comes a moment after the click.
      await eventually(async () => (await edit.getByLabel('Email').inputValue()) === 'dave@example.com');
      expect(await edit.getByLabel('Email').inputValue()).toBe('dave@example.com');

      // Disabled, then signed out everywhere (with a confirmation).
      await page.getByRole('button', { name: 'Disable user' }).click();
      await page.getByText('dave disabled; their sessions ended.').waitFor();
      expect((await login('dave', 'dave-password-2')).status).not.toBe(200);
      await page.getByRole('button', { name: 'Enable user' }).click();
      await page.getByText('dave enabled.').waitFor();
      await login('dave', 'dave-password-2');
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('button', { name: 'Sign out', exact: true }).nth(1).click();
      await page.getByText(/dave signed out everywhere: \d+ sessions? ended\./).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a platform administrator creates a realm and reads every realm's sessions; the tabs work by keyboard", async () => {
    const { context, page, errors } = await f.asAdmin();
    try {
      await toRealms(page);
      const create = page.getByRole('form', { name: 'Create a new one' });
      await create.getByLabel('Name of a new one').fill('realms-page');
      await create.getByRole('button', { name: 'Create' }).click();
      await page.getByText('Created realms-page.').waitFor();
      const made = (await token.admin.listRealms()).find((r) => r.name === 'realms-page');
      expect(made).toBeDefined();
      // The new realm is chosen once the list read again holds it.
      await picker(page).locator(`option[value="${made!.id}"]`).waitFor({ state: 'attached' });
      expect(await picker(page).inputValue()).toBe(made!.id);
      await page.getByRole('cell', { name: 'admin', exact: true }).waitFor({ state: 'detached' });
      await page.getByText('No user in this realm yet.').waitFor();

      await picker(page).selectOption({ label: 'default' });
      await page.getByRole('tab', { name: 'Users' }).focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      expect(await page.getByRole('tab', { name: 'Sessions' }).getAttribute('aria-selected')).toBe('true');
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      await page.getByLabel('Sessions of the user (exact username)').waitFor();
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a realm administrator, on a phone, administers its own realm only; nothing wider than the screen', async () => {
    const other = await token.admin.createRealm({ name: 'realms-other' });
    await token.admin.createUser({ realm: other.id, username: 'rae', password: 'rae-password-1', roles: ['realm-admin'] });
    const { context, page, errors } = await f.open({ phone: true });
    try {
      await f.signIn(page, 'rae', 'rae-password-1', 'realms-other');
      await toRealms(page);
      expect(await picker(page).locator('option').allInnerTexts()).toEqual(['realms-other']);
      expect(await page.getByRole('form', { name: 'Create a new one' }).count()).toBe(0);
      await page.getByRole('cell', { name: 'rae', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Manage rae' }).click();
      await page.getByRole('heading', { name: 'User rae' }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      await page.getByRole('tab', { name: 'Clients' }).click();
      await page.getByRole('cell', { name: 'platform-console', exact: true }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      await page.getByRole('tab', { name: 'Sessions' }).click();
      await page.getByRole('button', { name: /^End the session of rae/ }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
    // The graph itself refuses another realm to it (NOT_FOUND), whatever a page offers.
    const ra = (await login('rae', 'rae-password-1', 'realms-other')).token!;
    const answer = await gql(ra, `query ($r: ID!) { adminUsers(realm: $r) { total } }`, { r: realm });
    expect(answer.errors).toBeDefined();
  });
});
