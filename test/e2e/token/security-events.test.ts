import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { configParts } from '../../../bin/deps';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { loadConfig } from '../../../core/shared/config';
import type { TokenCore } from '../../../core/token';
import { testModules } from '../../shared/helpers';
import { eventually } from '../../shared/wait';
import { freePort } from '../shared/server';

const AUTH = '/auth/api/v1';
const ADMIN = '/admin/api/v1';
const PASSWORD = 'the-right-password-4711';
const WRONG = 'wrong-password-';
const REDIRECT = 'https://app.example/cb';

/**
 * Security events over real HTTP (core/token/security-events.ts): sign-ins and their failures,
 * lockouts, client authentication failures, revocations and logouts land in the audit trail with
 * who, from where and why, never a password, secret or token; the trail and the log lines alike.
 * Addresses come through a trusted proxy's X-Forwarded-For.
 */
describe('security events in the audit trail', () => {
  let running: RunningPlatform;
  let dataDir: string;
  let realm: string;
  let admin: string;
  let bootSecret: string;
  let bootClient: string;
  let publicUrl: string;
  const logLines: string[] = [];
  const secrets: string[] = [PASSWORD];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-events-'));
    const modules = testModules();
    const config = loadConfig(
      {
        PORT: String(await freePort()),
        PLATFORM_DATA_DIR: dataDir,
        METRICS_PORT: '0',
        TRUST_PROXY: 'loopback',
        LOCKOUT_THRESHOLD: '3',
        // 50 addresses at once must all be checked: no per-realm budget in the way.
        AUTH_REALM_FAILURES_PER_MINUTE: '1000',
      },
      configParts(modules),
    );
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    publicUrl = config.PUBLIC_URL;
    running = await startPlatform(config, { role: 'token', bootstrap: true, modules, log: pino({ level: 'info' }, sink) });
    const values = running.bootstrap!.values;
    realm = values.realm;
    bootClient = values.client_id;
    bootSecret = values.client_secret;
    secrets.push(values.admin_password, values.client_secret, values.password);
    const token = running.instances.token as unknown as TokenCore;
    await token.admin.createUser({ realm, username: 'alice', password: PASSWORD });
    admin = await bearer(realm, values.admin_username, values.admin_password);
  });
  afterAll(async () => {
    await running?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const form = (path: string, from: string, fields: Record<string, string>) =>
    fetch(running.url + path, {
      method: 'POST',
      headers: { 'x-forwarded-for': from, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  const login = async (from: string, username: string, password: string, inRealm = realm) => {
    const res = await form(`${AUTH}/oauth/connect/user/login`, from, { realm: inRealm, username, password });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  async function bearer(inRealm: string, username: string, password: string) {
    const r = await login('192.0.2.250', username, password, inRealm);
    if (r.status !== 200) throw new Error(`${username} could not sign in: ${r.status}`);
    secrets.push(r.body.access_token, r.body.refresh_token);
    return `Bearer ${r.body.access_token}`;
  }
  /** Every event the query finds, and the answers' text (searched for secrets). */
  async function events(query: Record<string, string>, auth = admin) {
    const out: Record<string, any>[] = [];
    let text = '';
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ ...query, limit: '200', ...(cursor ? { cursor } : {}) });
      const res = await fetch(`${running.url}${ADMIN}/audit-events?${q}`, { headers: { authorization: auth } });
      const page = await res.text();
      expect(res.status).toBe(200);
      text += page;
      const body = JSON.parse(page) as { items: Record<string, any>[]; next_cursor: string | null };
      out.push(...body.items);
      cursor = body.next_cursor;
    } while (cursor);
    return { items: out, text };
  }
  /** Signs in through the login page (authorization code flow with PKCE): the form post's status. */
  async function pageSignIn(from: string, username: string, password: string): Promise<number> {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'events-app',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const page = await fetch(`${running.url}${AUTH}/realms/${realm}/protocol/openid-connect/auth?${params}`, { redirect: 'manual' });
    const html = await page.text();
    const action = /<form id="kc-form-login" method="post" action="([^"]+)">/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    const request = /<input type="hidden" name="request" value="([^"]+)">/
      .exec(html)?.[1]
      ?.replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"');
    if (!action || !request) throw new Error(`no login form (${page.status})`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const target = new URL(action, publicUrl);
    const done = await fetch(`${running.url}${target.pathname}${target.search}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: publicUrl, cookie, 'x-forwarded-for': from },
      body: new URLSearchParams({ request, username, password }).toString(),
    });
    await done.arrayBuffer();
    return done.status;
  }

  /** The events of a query once `holds` says they are all in (recording does not hold up the answers). */
  async function seen(query: Record<string, string>, holds: (items: Record<string, any>[]) => boolean, auth = admin) {
    let last = { items: [] as Record<string, any>[], text: '' };
    await eventually(async () => holds((last = await events(query, auth)).items));
    return last;
  }
  const noSecrets = (text: string) => expect(secrets.filter((s) => s && text.includes(s))).toEqual([]);

  it('records a sign-in and a failed one with the address and the reason, never the password', async () => {
    expect((await login('198.51.100.10', 'alice', `${WRONG}one`)).status).toBe(401);
    expect((await login('198.51.100.10', 'nobody', `${WRONG}two`)).status).toBe(401);
    expect((await login('198.51.100.11', 'alice', PASSWORD)).status).toBe(200);
    const found = await seen(
      { type: 'login.', realm },
      (items) => items.filter((e) => e.address === '198.51.100.11' || e.address === '198.51.100.10').length === 3,
    );
    const of = (address: string, name: string) => found.items.find((e) => e.address === address && e.actor.name === name);
    expect(of('198.51.100.10', 'alice')).toMatchObject({
      type: 'login.failure',
      outcome: 'failure',
      service: 'token',
      realm,
      actor: { kind: 'user', realm, name: 'alice' },
      reason: 'wrong password, or locked',
    });
    expect(of('198.51.100.10', 'nobody')).toMatchObject({ type: 'login.failure', reason: 'no such user' });
    expect(of('198.51.100.11', 'alice')).toMatchObject({ type: 'login.success', outcome: 'success', actor: { name: 'alice' } });
    expect(found.text).not.toContain(WRONG);
    noSecrets(found.text);
  });

  it("records the login page's sign-ins and failures too", async () => {
    const token = running.instances.token as unknown as TokenCore;
    await token.admin.createPublicClient({ realm, clientId: 'events-app', redirectUris: [REDIRECT] });
    expect(await pageSignIn('198.51.100.15', 'alice', `${WRONG}page`)).toBe(401);
    expect(await pageSignIn('198.51.100.16', 'alice', PASSWORD)).toBe(302);
    const got = await seen({ type: 'login.', realm }, (items) => items.some((e) => e.address === '198.51.100.16'));
    expect(got.items.find((e) => e.address === '198.51.100.15')).toMatchObject({ type: 'login.failure', actor: { name: 'alice' } });
    expect(got.items.find((e) => e.address === '198.51.100.16')).toMatchObject({ type: 'login.success', actor: { name: 'alice' } });
    noSecrets(got.text);
    expect(got.text).not.toContain(WRONG);
  });

  it('records the lockout when an account becomes locked for an address', async () => {
    for (let i = 0; i < 4; i++) await login('198.51.100.20', 'alice', `${WRONG}lock-${i}`);
    const got = await seen({ type: 'login.lockout', realm }, (items) => items.some((e) => e.address === '198.51.100.20'));
    const locked = got.items.filter((e) => e.address === '198.51.100.20');
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ outcome: 'failure', actor: { kind: 'user', name: 'alice' }, details: { scope: 'account-address' } });
    // Another address still signs alice in.
    expect((await login('198.51.100.21', 'alice', PASSWORD)).status).toBe(200);
  });

  it('records refused client credentials, never the secret presented', async () => {
    const res = await form(`${AUTH}/oauth/connect/token`, '198.51.100.30', {
      realm,
      grant_type: 'client_credentials',
      client_id: bootClient,
      client_secret: `${bootSecret}-not`,
    });
    expect(res.status).toBe(401);
    const got = await seen({ type: 'client.auth-failure' }, (items) => items.some((e) => e.address === '198.51.100.30'));
    expect(got.items.find((e) => e.address === '198.51.100.30')).toMatchObject({
      actor: { kind: 'client', name: bootClient },
      target: { kind: 'client', id: bootClient },
      reason: 'wrong client secret, or locked',
    });
    noSecrets(got.text);
  });

  it('records a revocation and a logout, with who and the session, never the token', async () => {
    const signedIn = await login('198.51.100.40', 'alice', PASSWORD);
    secrets.push(signedIn.body.access_token, signedIn.body.refresh_token);
    expect((await form(`${AUTH}/oauth/connect/revoke`, '198.51.100.40', { realm, token: signedIn.body.refresh_token })).status).toBe(200);
    const again = await login('198.51.100.41', 'alice', PASSWORD);
    secrets.push(again.body.access_token, again.body.refresh_token);
    const out = await form(`${AUTH}/realms/${realm}/protocol/openid-connect/logout`, '198.51.100.41', {
      client_id: 'platform-login',
      refresh_token: again.body.refresh_token,
    });
    expect(out.status).toBeLessThan(300);
    const got = await seen({ realm, type: 'token.revoke' }, (items) => items.some((e) => e.address === '198.51.100.40'));
    expect(got.items.find((e) => e.address === '198.51.100.40')).toMatchObject({
      address: '198.51.100.40',
      actor: { kind: 'user', name: 'alice' },
      target: { kind: 'session' },
    });
    const logout = await seen({ realm, type: 'logout' }, (items) => items.some((e) => e.address === '198.51.100.41'));
    expect(logout.items.find((e) => e.address === '198.51.100.41')).toMatchObject({
      actor: { kind: 'client', name: 'platform-login' },
      details: { via: 'refresh_token' },
    });
    noSecrets(got.text + logout.text);
  });

  it('answers the right user at once while 50 addresses send wrong passwords together, and records each of them', async () => {
    const flood = Array.from({ length: 50 }, (_, i) => login(`203.0.113.${i + 1}`, 'alice', `${WRONG}flood-${i}`));
    const right = await login('198.51.100.50', 'alice', PASSWORD);
    expect(right.status).toBe(200);
    expect((await Promise.all(flood)).map((r) => r.status)).toEqual(Array(50).fill(401));
    const flooded = (items: Record<string, any>[]) =>
      new Set(items.filter((e) => String(e.address).startsWith('203.0.113.')).map((e) => e.address));
    const got = await seen({ type: 'login.failure', realm, actor: 'alice' }, (items) => flooded(items).size === 50);
    expect(flooded(got.items).size).toBe(50);
    noSecrets(got.text);
  });

  it("shows a realm administrator only its own realm's events", async () => {
    const token = running.instances.token as unknown as TokenCore;
    const other = await token.admin.createRealm({ name: 'events-other' });
    await token.admin.createUser({ realm: other.id, username: 'ra', password: PASSWORD, roles: [REALM_ADMIN_ROLE] });
    expect((await login('198.51.100.60', 'ra', `${WRONG}ra`, other.id)).status).toBe(401);
    const ra = await bearer(other.id, 'ra', PASSWORD);
    const own = await seen({}, (items) => items.some((e) => e.type === 'login.failure' && e.address === '198.51.100.60'), ra);
    expect(own.items.length).toBeGreaterThan(0);
    expect(own.items.every((e) => e.realm === other.id)).toBe(true);
    // Asking for another realm by name gives nothing, not an error that says it exists.
    expect((await events({ realm }, ra)).items).toEqual([]);
    // A plain user gets 403.
    const plain = await bearer(realm, 'alice', PASSWORD);
    expect((await fetch(`${running.url}${ADMIN}/audit-events`, { headers: { authorization: plain } })).status).toBe(403);
  });

  it('logs every audit event, and no log line carries a password, secret or token', () => {
    const audit = logLines.filter((l) => l.includes('"audit"'));
    expect(audit.some((l) => l.includes('login.failure'))).toBe(true);
    expect(audit.some((l) => l.includes('login.lockout'))).toBe(true);
    expect(audit.some((l) => l.includes('token.revoke'))).toBe(true);
    noSecrets(logLines.join('\n'));
    expect(logLines.join('\n')).not.toContain(WRONG);
  });
});
