import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { ALICE, BASE, PUBLIC_URL, signInFixture, spaParams, type SignInFixture } from './sign-in-helpers';

/**
 * The login form against a flood from many real source addresses (each request bound to its own
 * 127.0.x.y, no proxy header): 60 wrong passwords for one account at once, one per address, each
 * answered with the form's own refusal (never an error), and the account still signs in from
 * another address afterwards (every per-source count is one failure, the per-account bound is 100).
 */
describe('the login form, 60 wrong passwords at once from 60 source addresses', () => {
  let f: SignInFixture;
  let origin: string;
  beforeAll(async () => {
    f = await signInFixture();
    origin = `http://127.0.0.1:${(f.server.address() as AddressInfo).port}`;
  });
  afterAll(() => f.close());

  /** One browser on its own source address: the page, then the form posted with its cookies. */
  async function signInFrom(address: string, password: string) {
    const dispatcher = new Agent({ localAddress: address });
    try {
      const query = new URLSearchParams(spaParams()).toString();
      const page = await fetch(`${origin}${BASE}/realms/${f.realm}/protocol/openid-connect/auth?${query}`, { dispatcher });
      const cookie = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const html = await page.text();
      const action = /<form id="kc-form-login" method="post" action="([^"]+)">/.exec(html)![1];
      const request = /name="request" value="([^"]+)"/.exec(html)![1];
      const posted = await fetch(new URL(action, origin), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: ALICE.username, password, request }),
        dispatcher,
      });
      return { status: posted.status, text: await posted.text(), location: posted.headers.get('location') };
    } finally {
      await dispatcher.close();
    }
  }

  it('answers each with the form and "Invalid username or password.", then the right password signs in from another address', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => signInFrom(`127.0.${1 + Math.floor(i / 200)}.${10 + (i % 200)}`, 'wrong password')),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
    for (const a of answers) expect(a.text).toContain('Invalid username or password.');
    const honest = await signInFrom('127.0.9.9', ALICE.password);
    expect(honest.status).toBe(302);
    expect(new URL(honest.location!).searchParams.get('code')).toBeTruthy();
  });
});
