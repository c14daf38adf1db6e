import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { SERVICES } from '../../../services/registry';
import { eventually } from '../../shared/wait';
import { platformCli, startInTemp, type Ran, type Started } from '../shared/server';

/**
 * The `platform` command as a client of the admin API: every administrative command run on the data
 * directory (as the local administrator) and against the running platform (`--url`, signed in as its
 * first start's administrator) prints the same JSON, and fails with the same error line and exit code.
 * The remote runs get an empty data directory of their own, which they never open.
 */
describe('the platform command, locally and against a remote platform', () => {
  let p: Started;
  let boot: Record<string, string>;
  const away = mkdtempSync(join(tmpdir(), 'platform-remote-cli-'));
  /** What `eval "$(platform credentials --shell)"` exports, the admin's part. */
  let adminEnv: Record<string, string>;

  beforeAll(async () => {
    p = await startInTemp('all', {}, SERVICES);
    boot = JSON.parse(readFileSync(join(p.dataDir, 'bootstrap.json'), 'utf8'));
    adminEnv = { ADMIN_USERNAME: boot.admin_username, ADMIN_PASSWORD: boot.admin_password, REALM: boot.realm };
  }, 90_000);
  afterAll(async () => {
    await p?.stop();
    rmSync(away, { recursive: true, force: true });
  });

  const local = (args: string[], input?: string) => platformCli(p.dataDir, args, input);
  const remote = (args: string[], input?: string, env: Record<string, string> = adminEnv) =>
    platformCli(away, [...args, '--url', p.url], input, env);
  const json = (r: Ran) => {
    if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  /** Both ways at once: the same output, and what it says. */
  const both = async (args: string[]) => {
    const [l, r] = await Promise.all([local(args), remote(args)]);
    expect(r.status).toBe(l.status);
    expect(r.stdout).toBe(l.stdout);
    expect(r.stderr).toBe(l.stderr);
    return l.status === 0 ? JSON.parse(l.stdout) : JSON.parse(l.stderr);
  };

  let realm: string;

  it('realms: made on either side, listed and read the same; a stale version is refused the same way', async () => {
    realm = json(await local(['realm', 'create', '--name', 'acme', '--access-ttl', '120'])).realm;
    const made = json(await remote(['realm', 'create', '--name', 'remote-realm']));
    expect(made).toMatchObject({ name: 'remote-realm', enabled: true, default: false, version: 1 });
    const listed = await both(['realm', 'list']);
    expect(listed.map((r: { name: string }) => r.name).sort()).toEqual(['acme', 'default', 'remote-realm']);
    expect(await both(['realm', 'get', 'acme'])).toMatchObject({ realm, access_token_lifespan: 120, version: 1 });
    expect(await both(['realm', 'list', '--name', 'REMOTE', '--enabled', 'true'])).toEqual([made]);

    expect(json(await remote(['realm', 'update', 'remote-realm', '--refresh-ttl', '900', '--version', '1']))).toMatchObject({
      refresh_token_lifespan: 900,
      version: 2,
    });
    const stale = await both(['realm', 'update', 'remote-realm', '--access-ttl', '60', '--version', '1']);
    expect(stale).toEqual({ error: expect.stringMatching(/changed since/), kind: 'precondition_failed' });
    expect(json(await remote(['realm', 'disable', 'remote-realm']))).toMatchObject({ enabled: false, version: 3 });
  });

  it('clients: the secret in the answer that made it only; lists, reads and a refused duplicate the same', async () => {
    const a = json(await local(['client', 'create', '--client-id', 'billing', '--realm', realm, '--roles', 'search:read']));
    const b = json(
      await remote(['client', 'create', '--client-id', 'spa', '--realm', 'acme', '--public', '--redirect-uris', 'https://app.example/cb']),
    );
    expect(a.client_secret).toEqual(expect.any(String));
    expect(b).toMatchObject({ client_id: 'spa', public: true, redirect_uris: ['https://app.example/cb'] });
    expect(b.client_secret).toBeUndefined();

    const listed = await both(['client', 'list', '--realm', realm]);
    expect(listed.map((c: { client_id: string }) => c.client_id)).toEqual(['billing', 'platform-console', 'platform-login', 'spa']);
    expect(JSON.stringify(listed)).not.toContain(a.client_secret);
    expect(await both(['client', 'list', '--realm', 'acme', '--public', '--sort', '-client_id', '--limit', '2'])).toEqual([
      expect.objectContaining({ client_id: 'spa' }),
      expect.objectContaining({ client_id: 'platform-login' }),
    ]);
    expect(await both(['client', 'get', '--client-id', 'billing', '--realm', 'acme'])).toMatchObject({
      roles: ['search:read'],
      version: 1,
    });

    const rotated = json(await remote(['client', 'rotate-secret', '--client-id', 'billing', '--realm', realm]));
    expect(rotated.client_secret).toEqual(expect.any(String));
    expect(rotated.client_secret).not.toBe(a.client_secret);
    expect(json(await remote(['client', 'update', '--client-id', 'billing', '--realm', realm, '--scopes', 'openid,search']))).toMatchObject(
      {
        scopes: ['openid', 'search'],
      },
    );
    expect(await both(['client', 'create', '--client-id', 'billing', '--realm', realm])).toEqual({
      error: "client 'billing' already exists in this realm",
      kind: 'conflict',
    });
  });

  it('users: passwords from standard input, never printed; updates, unlock and logout the same', async () => {
    json(await local(['user', 'create', '--username', 'ann', '--realm', realm, '--roles', 'search:read'], 'a long enough password\n'));
    const bob = await remote(
      ['user', 'create', '--username', 'bob', '--realm', realm, '--email', 'bob@example.com'],
      'another long password\n',
    );
    expect(json(bob)).toMatchObject({ username: 'bob', email: 'bob@example.com', locked: false, version: 1 });
    expect(bob.stdout).not.toContain('another long');

    const listed = await both(['user', 'list', '--realm', realm]);
    expect(listed.map((u: { username: string }) => u.username)).toEqual(['ann', 'bob']);
    expect(await both(['user', 'list', '--realm', realm, '--role', 'search:read'])).toEqual([listed[0]]);
    expect(
      json(
        await remote(['user', 'update', '--username', 'ann', '--realm', realm, '--roles', 'search:read,search:write', '--version', '1']),
      ),
    ).toMatchObject({
      roles: ['search:read', 'search:write'],
      version: 2,
    });
    expect(await both(['user', 'get', '--username', 'ann', '--realm', realm])).toMatchObject({ version: 2 });

    const login = () =>
      fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
        method: 'POST',
        body: new URLSearchParams({ realm, username: 'bob', password: 'a brand new password' }),
      });
    expect(json(await remote(['user', 'set-password', '--username', 'bob', '--realm', realm], 'a brand new password\n'))).toMatchObject({
      username: 'bob',
      sessions_ended: 0,
    });
    expect((await login()).status).toBe(200);
    expect(json(await remote(['user', 'logout', '--username', 'bob', '--realm', realm]))).toEqual({
      realm,
      username: 'bob',
      sessions_ended: 1,
    });
    expect(json(await remote(['user', 'unlock', '--username', 'bob', '--realm', realm]))).toMatchObject({ locked: false });
    expect(json(await local(['user', 'disable', '--username', 'bob', '--realm', realm]))).toMatchObject({ enabled: false });
    expect(await both(['user', 'list', '--realm', realm, '--enabled', 'false'])).toEqual([expect.objectContaining({ username: 'bob' })]);
  });

  it('sessions: listed and refused the same', async () => {
    expect(await both(['session', 'list', '--realm', realm])).toEqual([]);
    expect(await both(['session', 'end', '01a2d9c0-0000-7000-8000-000000000000', '--realm', realm])).toEqual({
      error: expect.stringMatching(/no open session/),
      kind: 'not_found',
    });
  });

  it('keys: made, listed without their text, rotated and revoked the same from either side', async () => {
    const made = json(await local(['key', 'create', '--name', 'bot', '--tenant', 'acme', '--models', 'local-chat', '--rpm', '60']));
    expect(made).toMatchObject({ name: 'bot', tenant_id: 'acme', requests_per_minute: 60, api_key: expect.any(String) });
    const { api_key: _text, ...kept } = made;
    const listed = await both(['key', 'list', '--tenant', 'acme']);
    expect(listed).toEqual([kept]);
    expect(JSON.stringify(listed)).not.toContain(made.api_key);

    const rotated = json(await remote(['key', 'rotate', made.id]));
    expect(rotated).toMatchObject({ name: 'bot', tenant_id: 'acme', models: ['local-chat'], api_key: expect.any(String) });
    expect(await both(['key', 'get', made.id])).toMatchObject({ revoked_at: expect.any(String) });
    expect(json(await local(['key', 'revoke', rotated.prefix]))).toMatchObject({ id: rotated.id, revoked_at: expect.any(String) });
    expect(await both(['key', 'list', '--tenant', 'acme', '--revoked', 'false'])).toEqual([]);
    // A remote key without --tenant is the administrator's own tenant (the first start's, as the local default).
    expect(json(await remote(['key', 'create', '--name', 'mine']))).toMatchObject({ tenant_id: boot.tenant_id });
    expect(await both(['key', 'revoke', 'no-such-key'])).toEqual({ error: expect.stringMatching(/no key/i), kind: 'not_found' });
  });

  it("keys: a money budget set, changed and removed the same from either side; the flags' mistakes refused the same", async () => {
    const made = json(await local(['key', 'create', '--name', 'budgeted', '--tenant', 'acme', '--budget-usd', '5']));
    expect(made.budget).toEqual({ usd: 5, period: 'monthly', warn_at: 0.8 });
    const changed = await both(['key', 'update', made.id, '--budget-usd', '2', '--budget-period', 'daily', '--budget-warn', '0.5']);
    expect(changed).toMatchObject({ id: made.id, budget: { usd: 2, period: 'daily', warn_at: 0.5 }, spend: { spent_usd: 0 } });
    expect(await both(['key', 'get', made.id])).toMatchObject({ budget: { usd: 2, period: 'daily', warn_at: 0.5 } });
    const removed = await both(['key', 'update', made.prefix, '--no-budget']);
    expect(removed).toMatchObject({ id: made.id, name: 'budgeted', budget: null });
    expect(removed.spend).toBeUndefined();
    // A usage error is a line and exit 2 before anything is asked, the same either way.
    for (const [args, says] of [
      [['key', 'update', made.id], '--budget-usd N or --no-budget'],
      [['key', 'update', made.id, '--no-budget', '--budget-usd', '1'], 'exclude each other'],
    ] as const) {
      const [l, r] = await Promise.all([local([...args]), remote([...args])]);
      expect([l.status, r.status]).toEqual([2, 2]);
      expect(l.stderr).toContain(says);
      expect(r.stderr).toBe(l.stderr);
    }
    expect(await both(['key', 'update', 'no-such-key', '--no-budget'])).toEqual({
      error: expect.stringMatching(/no key/i),
      kind: 'not_found',
    });
  });

  it('the model catalog: put over HTTP, read the same, a stale version refused the same', async () => {
    const entry = join(away, 'entry.json');
    writeFileSync(
      entry,
      JSON.stringify({
        group: 'A',
        kind: 'chat',
        upstream: { provider: 'local' },
        contextLength: 4096,
        status: 'Active',
        inputKinds: ['text'],
      }),
    );
    expect(json(await remote(['model', 'put', 'team-chat', '--file', entry]))).toMatchObject({
      id: 'team-chat',
      source: 'admin',
      active: true,
      version: 1,
    });
    expect(await both(['model', 'get', 'team-chat'])).toMatchObject({ context_length: 4096 });
    expect(await both(['model', 'list', '--source', 'admin'])).toEqual([expect.objectContaining({ id: 'team-chat' })]);
    expect(json(await local(['model', 'deactivate', 'team-chat', '--version', '1']))).toMatchObject({ active: false, version: 2 });
    expect(await both(['model', 'deactivate', 'team-chat', '--version', '1'])).toMatchObject({ kind: 'precondition_failed' });
    const all = await both(['model', 'list']);
    expect(all.length).toBeGreaterThan(1);
  });

  it('usage and documents: the same rows and counts', async () => {
    const chat = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': boot.api_key },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }] }),
    });
    expect(chat.status).toBe(200);
    await eventually(async () => json(await local(['usage', '--model', 'local-chat'])).length > 0);
    expect(await both(['usage', '--tenant', boot.tenant_id])).toEqual([
      expect.objectContaining({ tenant_id: boot.tenant_id, model: 'local-chat', requests: 1 }),
    ]);

    const doc = join(away, 'notes.txt');
    writeFileSync(doc, 'Glaciers retreat as the climate warms.');
    json(await local(['ingest', doc, '--tenant', 'acme']));
    const docs = await both(['documents']);
    expect(docs).toEqual(expect.arrayContaining([expect.objectContaining({ tenant_id: 'acme', documents: 1 })]));
    expect(await both(['documents', '--tenant', 'acme'])).toMatchObject({ documents: 1, passages: expect.any(Number) });
    expect(json(await remote(['documents', 'reindex', '--tenant', 'acme']))).toMatchObject({
      tenant_id: 'acme',
      passages: expect.any(Number),
    });
  });

  it('audit: the same events, changes on the data directory by the local user (kind cli), remote ones by the administrator', async () => {
    const events = await both(['audit', '--type', 'client.create', '--outcome', 'success', '--order', 'asc']);
    expect(events.map((e: { actor: { kind: string; name?: string }; target: { id: string } }) => [e.actor.kind, e.target.id])).toEqual([
      ['cli', 'billing'],
      ['user', 'spa'],
    ]);
    expect(events[1].actor.name).toBe('admin');
    const trail = await both(['audit', '--realm', realm, '--limit', '500']);
    expect(JSON.stringify(trail)).not.toMatch(/long enough password|brand new password|client_secret|api_key/);
  });

  it("a realm administrator's remote commands see its own realm only; another realm is not found", async () => {
    json(await local(['user', 'create', '--username', 'ra', '--realm', realm, '--roles', REALM_ADMIN_ROLE], 'realm admin password\n'));
    const ra = { ADMIN_USERNAME: 'ra', ADMIN_PASSWORD: 'realm admin password', PLATFORM_REALM: realm };
    // Without --realm: the one realm it sees.
    const mine = json(await remote(['client', 'list'], undefined, ra));
    expect(mine.map((c: { realm: string }) => c.realm)).toEqual(mine.map(() => realm));
    expect(json(await remote(['realm', 'list'], undefined, ra))).toEqual([expect.objectContaining({ realm, name: 'acme' })]);

    const other = await remote(['client', 'list', '--realm', boot.realm], undefined, ra);
    expect(other.status).toBe(1);
    expect(JSON.parse(other.stderr)).toEqual({ error: `no realm '${boot.realm}'`, kind: 'not_found' });
    // The same answer as for a realm that does not exist at all.
    const none = await remote(['client', 'list', '--realm', 'no-such-realm'], undefined, ra);
    expect(JSON.parse(none.stderr)).toEqual({ error: "no realm 'no-such-realm'", kind: 'not_found' });

    const grant = await remote(['user', 'update', '--username', 'ra', '--realm', realm, '--roles', PLATFORM_ADMIN_ROLE], undefined, ra);
    expect(grant.status).toBe(1);
    expect(JSON.parse(grant.stderr).kind).toBe('forbidden');
  });

  it('signs in with a token or an admin client; a bad token is a 401 line and exit 1; none at all is a usage error', async () => {
    const made = json(await local(['client', 'create', '--client-id', 'ops-bot', '--roles', PLATFORM_ADMIN_ROLE]));
    const viaClient = await remote(['realm', 'list'], undefined, {
      PLATFORM_CLIENT_ID: 'ops-bot',
      PLATFORM_CLIENT_SECRET: made.client_secret,
    });
    expect(viaClient.stdout).toBe((await local(['realm', 'list'])).stdout);

    const login = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ realm: boot.realm, username: boot.admin_username, password: boot.admin_password }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const viaToken = await remote(['key', 'list', '--token', access_token], undefined, {});
    expect(viaToken.status).toBe(0);
    expect((await remote(['key', 'list'], undefined, { PLATFORM_TOKEN: access_token })).stdout).toBe(viaToken.stdout);

    const bad = await remote(['client', 'list', '--token', 'not-a-token'], undefined, {});
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr)).toEqual({ error: expect.any(String), kind: 'unauthenticated' });
    const wrong = await remote(['client', 'list'], undefined, { ...adminEnv, ADMIN_PASSWORD: 'not the password' });
    expect(wrong.status).toBe(1);
    expect(JSON.parse(wrong.stderr).kind).toBe('unauthenticated');
    expect(wrong.stderr).not.toContain('not the password');

    const nobody = await remote(['client', 'list'], undefined, {});
    expect(nobody.status).toBe(2);
    expect(nobody.stderr).toContain('needs an administrator');
    // A plain user is no administrator: 403.
    const plain = await remote(['realm', 'list'], undefined, {
      ADMIN_USERNAME: boot.username,
      ADMIN_PASSWORD: boot.password,
      REALM: boot.realm,
    });
    expect(plain.status).toBe(1);
    expect(JSON.parse(plain.stderr).kind).toBe('forbidden');
    expect((await platformCli(away, ['realm', 'list', '--url', 'ftp://x'])).status).toBe(2);
  });

  it('never opened the data directory it was given', () => {
    expect(readdirSync(away).sort()).toEqual(['entry.json', 'notes.txt']);
  });
});
