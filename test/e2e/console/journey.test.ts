import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture, type Visit } from './fixture';

/**
 * Issue 34's whole journey in Chromium, through the console only (the graph behind it): an
 * administrator signs in through the login page, creates a realm user and a model key; the user
 * signs in, uploads a document and watches its progress, finds it with a search, streams a chat
 * answer that cites it (its link opens the document), signs out; the administrator sees the call
 * in the usage chart's totals and the changes on the audit page, and signs out. Then the same as a
 * realm administrator of another realm, who must see nothing of the first: not its users, keys,
 * documents, usage or audit events. axe-core finds nothing serious on any page on the way.
 */
jest.setTimeout(300_000);

describeConsole('the console: the whole journey', () => {
  let f: ConsoleFixture;
  let token: TokenCore;

  beforeAll(async () => {
    f = await consoleFixture();
    token = f.platform.instances.token as unknown as TokenCore;
  }, 120_000);
  afterAll(() => f?.stop());

  const go = async (page: Page, link: string, heading: string) => {
    await page.getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    expect(await severe(page)).toEqual([]);
  };
  const signOut = async ({ page }: Visit) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  };

  /** The administrator's part: a user with the search roles, and a key for the user's tenant; the key as shown once. */
  const setUp = async ({ page }: Visit, realm: string, username: string, keyName: string): Promise<string> => {
    await go(page, 'Realms', 'Realms');
    const create = page.getByRole('form', { name: 'Create a user' });
    await create.getByLabel('Username').fill(username);
    await create.getByLabel('Password').fill(`${username}-password-1`);
    await create.getByLabel('Roles (comma-separated)').fill('search:read, search:write');
    await create.getByRole('button', { name: 'Create user' }).click();
    await page.getByText(`User ${username} created.`).waitFor();
    await page.getByRole('cell', { name: username, exact: true }).waitFor();
    const user = (await token.admin.listUsers(realm)).find((u) => u.username === username)!;

    await go(page, 'Model keys', 'Model keys');
    const key = page.getByRole('form', { name: 'Create a model key' });
    await key.getByLabel('Name').fill(keyName);
    const tenant = key.getByLabel('Tenant');
    if ((await tenant.evaluate((e) => e.tagName)) === 'SELECT') await tenant.selectOption(user.tenantId);
    else await tenant.fill(user.tenantId);
    await key.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('textbox', { name: 'The new key' });
    await shown.waitFor();
    const apiKey = await shown.inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    return apiKey;
  };

  /** The user's part: upload, search, a cited streamed answer whose source opens the document. */
  const use = async ({ page }: Visit, apiKey: string, file: string, text: string, question: string, word: string) => {
    await go(page, 'Documents', 'Documents');
    await page.getByRole('tab', { name: 'Upload' }).click();
    const upload = page.getByRole('tabpanel', { name: 'Upload' });
    await upload.getByLabel('Choose files to upload').setInputFiles({ name: file, mimeType: 'text/plain', buffer: Buffer.from(text) });
    const row = upload.getByRole('list', { name: 'Uploads' }).getByRole('listitem').filter({ hasText: file });
    await row.getByRole('link', { name: /^Open / }).waitFor();
    expect(await row.getByTestId('upload-state').innerText()).toBe('Done');
    expect(await row.getByRole('progressbar').getAttribute('value')).toBe('1');

    await page.getByRole('tab', { name: 'Search playground' }).click();
    const search = page.getByRole('form', { name: 'Search playground' });
    await search.getByLabel('Query').fill(word);
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('tabpanel', { name: 'Search playground' }).locator('.doc-hit').getByRole('link', { name: file }).waitFor();

    await go(page, 'Chat', 'Chat');
    await page.getByLabel('LM key (api-key)').fill(apiKey);
    await page.getByLabel('Question', { exact: true }).fill(question);
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('button', { name: 'New conversation' }).waitFor();
    const source = page.locator('.chat-turn').first().getByRole('link', { name: file });
    await source.waitFor();
    expect(await severe(page)).toEqual([]);
    await source.click();
    await page.getByRole('heading', { name: file, level: 2 }).waitFor();
    await page.locator('.doc-passage').getByText(text.slice(0, 30), { exact: false }).waitFor();
  };

  /** The administrator again: the key's calls in the usage totals, the changes in the audit trail. */
  const review = async ({ page }: Visit, keyName: string, username: string, unseen?: { key: string; username: string }) => {
    await go(page, 'Usage', 'Usage');
    await page.getByLabel('Group by').selectOption('key');
    const header = page.getByRole('rowheader', { name: new RegExp(`^${keyName} \\(`) });
    await header.waitFor();
    const cells = await page.locator('table.usage-totals tbody tr').filter({ has: header }).locator('td').allInnerTexts();
    expect(Number(cells[0].replace(/,/g, ''))).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.usage-charts canvas').count()).toBeGreaterThan(0);
    if (unseen) expect(await page.getByRole('rowheader', { name: new RegExp(`^${unseen.key} \\(`) }).count()).toBe(0);

    await go(page, 'Audit', 'Audit');
    await page.getByRole('cell', { name: 'key.create', exact: true }).first().waitFor();
    await page.getByRole('cell', { name: 'user.create', exact: true }).first().waitFor();
    const targets = await page.locator('table.audit-table tbody tr td:nth-child(5)').allInnerTexts();
    expect(targets).toContain(`user ${username}`);
    if (unseen) expect(targets).not.toContain(`user ${unseen.username}`);
  };

  it('a platform administrator and a user of the default realm, from sign-in to sign-out', async () => {
    const admin = await f.asAdmin();
    const apiKey = await setUp(admin, f.values.realm, 'journey-user', 'journey-key');
    await signOut(admin);

    const user = await f.open();
    await f.signIn(user.page, 'journey-user', 'journey-user-password-1');
    await use(
      user,
      apiKey,
      'quokkas.txt',
      'The quokka colony on Rottnest Island counts about twelve thousand animals. Quokkas eat grasses and leaves.',
      'How many quokkas live on Rottnest Island?',
      'quokka',
    );
    await signOut(user);

    await f.signIn(admin.page, f.values.admin_username, f.values.admin_password);
    await review(admin, 'journey-key', 'journey-user');
    await signOut(admin);
    expect(admin.errors).toEqual([]);
    expect(user.errors).toEqual([]);
    await admin.context.close();
    await user.context.close();
  });

  it('a realm administrator of another realm, on a phone, the same, seeing nothing of the first realm', async () => {
    const other = await token.admin.createRealm({ name: 'journey-other' });
    await token.admin.createUser({ realm: other.id, username: 'ra', password: 'ra-password-1', roles: ['realm-admin'] });
    const ra = await f.open({ phone: true });
    await f.signIn(ra.page, 'ra', 'ra-password-1', 'journey-other');
    const apiKey = await setUp(ra, other.id, 'other-user', 'other-key');
    // Nothing of the default realm: its user, its key.
    await go(ra.page, 'Realms', 'Realms');
    expect(await ra.page.getByRole('cell', { name: 'journey-user', exact: true }).count()).toBe(0);
    await go(ra.page, 'Model keys', 'Model keys');
    await ra.page.getByRole('cell', { name: 'other-key', exact: true }).first().waitFor();
    expect(await ra.page.getByRole('cell', { name: 'journey-key', exact: true }).count()).toBe(0);
    expect(await fitsWidth(ra.page)).toBe(true);
    await signOut(ra);

    const user = await f.open({ phone: true });
    await f.signIn(user.page, 'other-user', 'other-user-password-1', 'journey-other');
    await use(
      user,
      apiKey,
      'herons.txt',
      'The grey heron nests in tall trees near the lake and eats fish, frogs and voles.',
      'What does the grey heron eat?',
      'heron',
    );
    // The first realm's document is not this tenant's.
    await user.page.getByRole('link', { name: 'Documents', exact: true }).click();
    await user.page.getByRole('tab', { name: 'Search playground' }).click();
    const search = user.page.getByRole('form', { name: 'Search playground' });
    await search.getByLabel('Query').fill('quokka');
    await search.getByRole('button', { name: 'Search' }).click();
    await user.page.getByRole('tabpanel', { name: 'Search playground' }).getByText('Nothing found.').waitFor();
    expect(await fitsWidth(user.page)).toBe(true);
    await signOut(user);

    await f.signIn(ra.page, 'ra', 'ra-password-1', 'journey-other');
    await review(ra, 'other-key', 'other-user', { key: 'journey-key', username: 'journey-user' });
    expect(await fitsWidth(ra.page)).toBe(true);
    await signOut(ra);
    expect(ra.errors).toEqual([]);
    expect(user.errors).toEqual([]);
    await ra.context.close();
    await user.context.close();
  });
});
