import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../shared/server';
import { describeReplicas, startReplicas, type ReplicaSet } from '../../shared/replicas';
import { accepts, refusedEverywhere, waitFor, type Bootstrap } from '../token/revocation-faces';

jest.setTimeout(120_000);

const APP = 'https://app.example/cb';

/** One browser: its cookies, whichever replica answers (they share the domain, as behind a load balancer). */
class Browser {
  private jar = new Map<string, string>();
  cookie = () => [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  keep(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      if (/max-age=0/i.test(c)) this.jar.delete(pair.slice(0, eq));
      else this.jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }
  get = async (url: string) => this.keep(await fetch(url, { redirect: 'manual', headers: { cookie: this.cookie() } }));
  post = async (url: string, form: Record<string, string>) =>
    this.keep(
      await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: this.cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      }),
    );
}

/**
 * Sign-in for people across two replicas on one PostgreSQL database: the login page of replica A,
 * the code exchanged at replica B, single sign-on on B with the browser session A started, a code
 * reused on the other replica, and logout on one replica ending the tokens on the other.
 */
describeReplicas('sign-in across replicas (PostgreSQL)', () => {
  let set: ReplicaSet;
  let boot: Bootstrap;
  let A: string;
  let B: string;
  let cliDir: string;

  beforeAll(async () => {
    set = await startReplicas({ count: 2 });
    boot = set.credentials() as unknown as Bootstrap;
    [A, B] = set.replicas.map((r) => r.url) as [string, string];
    cliDir = mkdtempSync(join(tmpdir(), 'sign-in-replicas-cli-'));
    const r = await run(
      process.execPath,
      [
        join(ROOT, 'dist', 'bin', 'platform.js'),
        'client',
        'create',
        '--client-id',
        'spa',
        '--public',
        '--redirect-uris',
        APP,
        '--realm',
        boot.realm,
      ],
      { env: { ...set.env, PLATFORM_DATA_DIR: cliDir } },
    );
    if (r.status !== 0) throw new Error(r.stderr);
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
  });

  const realmPath = (base: string) => `${base}/auth/api/v1/realms/${boot.realm}`;
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };
  const authorizeUrl = (base: string, challenge: string) =>
    `${realmPath(base)}/protocol/openid-connect/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: 'spa',
      redirect_uri: APP,
      scope: 'openid',
      state: 'st',
      nonce: 'nn',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`;
  const codeOf = (res: Response) => {
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!).searchParams.get('code')!;
  };
  const exchange = (base: string, code: string, verifier: string) =>
    fetch(`${realmPath(base)}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'spa', redirect_uri: APP, code, code_verifier: verifier }),
    });

  /** The login page of `base`, the demo user's password typed: the code it sends back. */
  async function signIn(browser: Browser, base: string, challenge: string) {
    const page = await (await browser.get(authorizeUrl(base, challenge))).text();
    const action = /<form id="kc-form-login" method="post" action="([^"]+)"/.exec(page)![1];
    const request = /name="request" value="([^"]+)"/.exec(page)![1];
    return codeOf(await browser.post(`${base}${action}`, { username: boot.username, password: boot.password, request }));
  }

  it('signs in on A, exchanges on B; single sign-on on B; logout on B ends the tokens on A', async () => {
    const browser = new Browser();
    const first = pkce();
    const res = await exchange(B, await signIn(browser, A, first.challenge), first.verifier);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; id_token: string };
    expect(await accepts(A, 'graphql', tokens.access_token, boot.tenant_id)).toBe(true);

    // Replica B knows the browser session replica A started: a code at once, no login page.
    const second = pkce();
    const sso = await exchange(A, codeOf(await browser.get(authorizeUrl(B, second.challenge))), second.verifier);
    expect(sso.status).toBe(200);
    const other = (await sso.json()) as { access_token: string; id_token: string };

    // Logout on B with the second app's ID token ends the browser session and both apps' tokens, on A too.
    const out = await browser.get(
      `${realmPath(B)}/protocol/openid-connect/logout?${new URLSearchParams({ id_token_hint: other.id_token })}`,
    );
    expect(out.status).toBe(200);
    await waitFor(() => refusedEverywhere(A, tokens.access_token, boot.tenant_id, 1), 'the first token refused by replica A');
    await waitFor(() => refusedEverywhere(A, other.access_token, boot.tenant_id, 1), 'the second token refused by replica A');
    // And the next sign-in asks for the password again, on either replica.
    const again = await browser.get(authorizeUrl(A, pkce().challenge));
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('kc-form-login');
  });

  it('a code exchanged on B and again on A: the second is refused and the first tokens end on both', async () => {
    const browser = new Browser();
    const p = pkce();
    const code = await signIn(browser, B, p.challenge);
    const firstUse = await exchange(B, code, p.verifier);
    expect(firstUse.status).toBe(200);
    const tokens = (await firstUse.json()) as { access_token: string };
    const reuse = await exchange(A, code, p.verifier);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    await waitFor(() => refusedEverywhere(B, tokens.access_token, boot.tenant_id, 1), 'the first use tokens refused by replica B');
  });
});
