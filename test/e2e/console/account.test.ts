import type { Page } from 'playwright-core';
import type { TokenCore } from '../../../core/token';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture, type Visit } from './fixture';

/**
 * The console's My sessions page in Chromium (docs/console.md), over the graph only: a plain user
 * signs in with two browsers, sees both sessions (this one marked), ends the other one (that
 * browser's next graph call is refused and it is signed out, saying so), ends this browser's own
 * session after a confirmation (signed out at once), and signs out everywhere after a confirmation.
 * axe-core finds nothing serious, nothing is wider than a phone's screen, the console logs no error.
 */
jest.setTimeout(240_000);

describeConsole('the console: my sessions', () => {
  let f: ConsoleFixture;
  let token: TokenCore;
  let realm: string;
  const ERIN = { username: 'erin', password: 'erin-password-1' };

  beforeAll(async () => {
    f = await consoleFixture();
    realm = f.values.realm;
    token = f.platform.instances.token as unknown as TokenCore;
    await token.admin.createUser({ realm, ...ERIN, roles: ['search:read'] });
  }, 120_000);
  afterAll(() => f?.stop());

  const openSessions = async () => (await token.admin.listSessions(realm, ERIN.username)).length;
  const toMySessions = async (page: Page) => {
    await page.getByRole('link', { name: 'My sessions' }).click();
    await page.getByRole('heading', { name: 'My sessions' }).waitFor();
  };
  /** The sign-in page, with the note saying why this browser is there (an alert when it was ended elsewhere). */
  const signedOut = async (page: Page, note: string | RegExp, role: 'status' | 'alert' = 'status') => {
    await page.getByRole(role).filter({ hasText: note }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  };

  it('two browsers: the other one ended (and signed out), this one ended, then everywhere; on a phone, axe-clean', async () => {
    const there: Visit = await f.open();
    const here: Visit = await f.open({ phone: true });
    try {
      await f.signIn(there.page, ERIN.username, ERIN.password);
      await f.signIn(here.page, ERIN.username, ERIN.password);
      expect(await openSessions()).toBe(2);

      // Both sessions, this browser's marked; the page fits a phone.
      const { page } = here;
      await toMySessions(page);
      await page.getByRole('cell', { name: 'This browser', exact: true }).waitFor();
      await page.getByRole('cell', { name: 'Another browser', exact: true }).waitFor();
      expect(await page.getByRole('row').count()).toBe(3);
      expect(await fitsWidth(page)).toBe(true);
      expect(await severe(page)).toEqual([]);

      // The other one ended: the list keeps this browser's only, and that browser is signed out on its next call.
      await page.getByRole('button', { name: /^End the session signed in at/ }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Session of .+ ended\.$/ })
        .waitFor();
      await page.getByText('Page 1 · 1 of 1').waitFor();
      expect(await page.getByRole('cell', { name: 'Another browser', exact: true }).count()).toBe(0);
      expect(await openSessions()).toBe(1);
      await there.page.getByRole('link', { name: 'My sessions' }).click();
      await signedOut(there.page, 'Your session was ended (from another browser, or by an administrator). Sign in again.', 'alert');
      expect(await severe(there.page)).toEqual([]);

      // It signs in again (its single sign-on ended too: the login page asks for the password), and ends its own session, asked first.
      await f.signIn(there.page, ERIN.username, ERIN.password);
      await toMySessions(there.page);
      await there.page.getByRole('button', { name: "End this browser's session" }).click();
      await there.page.getByRole('group', { name: "End this browser's session? You will be signed out." }).waitFor();
      await there.page.getByRole('button', { name: 'End it' }).click();
      await signedOut(there.page, "You ended this browser's session: sign in again to go on.");
      expect(await openSessions()).toBe(1);

      // Signed in there once more; then everywhere, from here, asked first: both browsers signed out.
      await f.signIn(there.page, ERIN.username, ERIN.password);
      expect(await openSessions()).toBe(2);
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('group', { name: "End every session of yours, this browser's too?" }).waitFor();
      expect(await severe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await signedOut(page, /^You signed out everywhere: \d+ sessions ended\. Sign in again to go on\.$/);
      expect(await openSessions()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      await there.page.getByRole('link', { name: 'My sessions' }).click();
      await signedOut(there.page, /^Your session was ended/, 'alert');

      expect(here.errors).toEqual([]);
      expect(there.errors).toEqual([]);
    } finally {
      await here.context.close();
      await there.context.close();
    }
  });
});
