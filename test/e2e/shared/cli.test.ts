import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../core/shared/config';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { configParts } from '../../../bin/deps';
import { SERVICES } from '../../../services/registry';
import { freePort, platformCli } from './server';

const json = (s: string) => JSON.parse(s);

describe('the platform command administering a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-cli-'));
  const cli = (args: string[], input?: string) => platformCli(dataDir, args, input);
  let realm: string;
  let secret: string;
  let server: RunningPlatform;

  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a realm, a client and a user (password from standard input) and prints JSON', async () => {
    const r = await cli(['realm', 'create', '--name', 'acme', '--access-ttl', '120', '--refresh-ttl', '600']);
    expect(r.status).toBe(0);
    realm = json(r.stdout).realm;
    expect(json(r.stdout)).toMatchObject({ name: 'acme', access_token_lifespan: 120, refresh_token_lifespan: 600, enabled: true });

    const c = await cli([
      'client',
      'create',
      '--client-id',
      'billing',
      '--realm',
      realm,
      '--tenant',
      'acme',
      '--roles',
      'search:read',
      '--scopes',
      'openid,search',
    ]);
    expect(c.status).toBe(0);
    const client = json(c.stdout);
    expect(client).toMatchObject({ client_id: 'billing', realm, tenant_id: 'acme', roles: ['search:read'], scopes: ['openid', 'search'] });
    secret = client.client_secret;
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const u = await cli(
      ['user', 'create', '--username', 'ann', '--realm', realm, '--tenant', 'acme', '--roles', 'search:read'],
      'a long enough password\n',
    );
    expect(u.status).toBe(0);
    expect(json(u.stdout)).toMatchObject({ username: 'ann', realm, tenant_id: 'acme', enabled: true, locked: false });
  });

  it('lists without ever printing secrets or hashes', async () => {
    const lists = await Promise.all([
      cli(['realm', 'list']),
      cli(['client', 'list', '--realm', realm]),
      cli(['user', 'list', '--realm', realm]),
    ]);
    for (const l of lists) {
      expect(l.status).toBe(0);
      expect(l.stdout).not.toMatch(/scrypt|secret|password/i);
    }
    expect(
      json(lists[1].stdout)
        .map((c: { client_id: string }) => c.client_id)
        .sort(),
    ).toEqual(['billing', 'platform-console', 'platform-login']);
  });

  it('registers a public client for a browser app, changes its URIs, and lists and ends single sign-on sessions', async () => {
    const app = 'https://app.example.com';
    const c = await cli([
      'client',
      'create',
      '--client-id',
      'spa',
      '--realm',
      realm,
      '--public',
      '--redirect-uris',
      `${app}/cb,${app}/cb2`,
      '--web-origins',
      app,
    ]);
    expect(c.status).toBe(0);
    const made = json(c.stdout);
    expect(made).toMatchObject({
      client_id: 'spa',
      public: true,
      redirect_uris: [`${app}/cb`, `${app}/cb2`],
      post_logout_redirect_uris: [],
      web_origins: [app],
    });
    expect(made.client_secret).toBeUndefined();

    const u = await cli([
      'client',
      'update',
      '--client-id',
      'spa',
      '--realm',
      realm,
      '--post-logout-redirect-uris',
      `${app}/bye`,
      '--redirect-uris',
      `${app}/cb`,
    ]);
    expect(u.status).toBe(0);
    expect(json(u.stdout)).toMatchObject({ redirect_uris: [`${app}/cb`], post_logout_redirect_uris: [`${app}/bye`], web_origins: [app] });

    // Exact URIs only: a wildcard, a fragment or a bad origin is refused (exit 1) with the reason.
    for (const bad of [
      ['--redirect-uris', `${app}/*`],
      ['--redirect-uris', `${app}/cb#x`],
      ['--web-origins', `${app}/path`],
    ]) {
      const r = await cli(['client', 'update', '--client-id', 'spa', '--realm', realm, ...bad]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/wildcard|fragment|scheme:\/\/host/);
    }
    expect((await cli(['client', 'create', '--client-id', 'x', '--realm', realm, '--public', '--bogus'])).status).toBe(2);

    const sessions = await cli(['session', 'list', '--realm', realm]);
    expect(sessions.status).toBe(0);
    expect(json(sessions.stdout)).toEqual([]);
    const end = await cli(['session', 'end', '01a2d9c0-0000-7000-8000-000000000000', '--realm', realm]);
    expect(end.status).toBe(1);
    expect(end.stderr).toMatch(/no open session/);
  });

  it("changes what a running server answers: a disabled user's tokens turn inactive at once", async () => {
    const config = loadConfig({ PORT: String(await freePort()), PLATFORM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, configParts(SERVICES));
    server = await startPlatform(config, { log: pino({ level: 'silent' }) });
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${server.url}/auth/api/v1/oauth/connect/${path}`, { method: 'POST', body: new URLSearchParams(form) });

    const clientToken = await post('token', { realm, client_id: 'billing', client_secret: secret, scopes: 'search' });
    expect(clientToken.status).toBe(200);
    expect(await clientToken.json()).toMatchObject({ expires_in: 120, refresh_expires_in: 600, scope: 'search' });

    const login = await post('user/login', { realm, username: 'ann', password: 'a long enough password' });
    const { access_token } = (await login.json()) as { access_token: string };
    const before = await (await post('introspect', { realm, token: access_token })).json();
    expect(before).toMatchObject({ active: 'true', username: 'ann', tenant_id: 'acme' });

    expect((await cli(['user', 'disable', '--username', 'ann', '--realm', realm])).status).toBe(0);
    expect(await (await post('introspect', { realm, token: access_token })).json()).toEqual({ active: 'false' });
    // Enabling her again does not revive the tokens she had: disabling ended her sessions.
    expect((await cli(['user', 'enable', '--username', 'ann', '--realm', realm])).status).toBe(0);
    expect(await (await post('introspect', { realm, token: access_token })).json()).toEqual({ active: 'false' });

    // logout ends every session; set-password (from standard input) too, and only the new password works.
    const again = (await (await post('user/login', { realm, username: 'ann', password: 'a long enough password' })).json()) as {
      access_token: string;
    };
    const out = await cli(['user', 'logout', '--username', 'ann', '--realm', realm]);
    expect(json(out.stdout)).toEqual({ realm, username: 'ann', sessions_ended: 1 });
    expect(await (await post('introspect', { realm, token: again.access_token })).json()).toEqual({ active: 'false' });
    const third = (await (await post('user/login', { realm, username: 'ann', password: 'a long enough password' })).json()) as {
      access_token: string;
    };
    const changed = await cli(['user', 'set-password', '--username', 'ann', '--realm', realm], 'an entirely new password\n');
    expect(changed.status).toBe(0);
    expect(json(changed.stdout)).toMatchObject({ username: 'ann', sessions_ended: 1 });
    expect(changed.stdout).not.toContain('entirely new');
    expect(await (await post('introspect', { realm, token: third.access_token })).json()).toEqual({ active: 'false' });
    expect((await post('user/login', { realm, username: 'ann', password: 'a long enough password' })).status).toBe(401);
    expect((await post('user/login', { realm, username: 'ann', password: 'an entirely new password' })).status).toBe(200);

    expect((await cli(['client', 'disable', '--client-id', 'billing', '--realm', realm])).status).toBe(0);
    expect((await post('token', { realm, client_id: 'billing', client_secret: secret })).status).toBe(401);
  });

  it('explains usage mistakes with exit code 2 and refused operations with exit code 1', async () => {
    const missing = await cli(['client', 'create', '--realm', realm]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--client-id is required');

    const duplicate = await cli(['client', 'create', '--client-id', 'billing', '--realm', realm]);
    expect(duplicate.status).toBe(1);
    expect(json(duplicate.stderr)).toEqual({ error: "client 'billing' already exists in this realm", kind: 'conflict' });

    const unknownRealm = await cli(['user', 'list', '--realm', 'nope']);
    expect(unknownRealm.status).toBe(1);
    expect(json(unknownRealm.stderr)).toEqual({ error: "no realm 'nope'", kind: 'not_found' });

    const unknown = await cli(['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");

    const badPort = await platformCli(dataDir, ['start', '--port', 'eighty']);
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain('PORT');
  });

  it('rotates a realm key and a client secret, printing the new secret once', async () => {
    const key = await cli(['realm', 'rotate-key', realm]);
    expect(key.status).toBe(0);
    expect(json(key.stdout)).toMatchObject({ realm, keys: 2 });
    const rotated = await cli(['client', 'rotate-secret', '--client-id', 'billing', '--realm', realm]);
    expect(rotated.status).toBe(0);
    expect(json(rotated.stdout).client_secret).not.toBe(secret);
  });

  it('checks that the committed supergraph is fresh', async () => {
    const check = await cli(['compose', '--check']);
    expect(check.status).toBe(0);
    expect(json(check.stdout)).toMatchObject({ fresh: true });
  });
});
