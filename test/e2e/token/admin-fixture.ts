import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { configParts } from '../../../bin/deps';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { loadConfig, type Config } from '../../../core/shared/config';
import { testModules } from '../../shared/helpers';
import { freePort } from '../shared/server';

export const ADMIN = '/admin/api/v1';
export const AUTH = '/auth/api/v1';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
  /** The body as it came, for searching it for what must never be there. */
  text: string;
}

export interface AdminFixture {
  url: string;
  config: Config;
  running: RunningPlatform;
  /** The first start's default realm (its id) and the platform administrator `admin` in it. */
  realm: string;
  adminPassword: string;
  /** `Bearer <token>` of the platform administrator. */
  platform: string;
  call(method: string, path: string, opts?: { auth?: string; body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  /** Signs a user in with the password grant: the answer (its status, and its access token when 200). */
  login(realm: string, username: string, password: string): Promise<Answer>;
  /** `Bearer <token>` of a user who signs in with this password (fails the test otherwise). */
  bearer(realm: string, username: string, password: string): Promise<string>;
  /** Signs a user in through the login page (a single sign-on session) for `clientId`, a public client redirecting to REDIRECT. */
  browserSignIn(realm: string, clientId: string, username: string, password: string): Promise<void>;
  stop(): Promise<void>;
}

/** Where the fixture's public clients send their codes. */
export const REDIRECT = 'https://app.example/cb';

/**
 * The platform's token service started as `platform serve token` starts it (its first start's
 * bootstrap too: the platform administrator `admin`), its admin API over real HTTP.
 */
export async function adminFixture(env: Record<string, string> = {}): Promise<AdminFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-admin-'));
  const modules = testModules();
  const config = loadConfig(
    { PORT: String(await freePort()), PLATFORM_DATA_DIR: dataDir, LOG_LEVEL: 'silent', METRICS_PORT: '0', ...env },
    configParts(modules),
  );
  const running = await startPlatform(config, { role: 'token', bootstrap: true, modules, log: pino({ level: 'silent' }) });
  const url = running.url;
  const values = running.bootstrap!.values;

  const call: AdminFixture['call'] = async (method, path, opts = {}) => {
    const res = await fetch(url + (path.startsWith('/') && !path.startsWith(AUTH) && !path.startsWith(ADMIN) ? ADMIN + path : path), {
      method,
      headers: {
        ...(opts.auth ? { authorization: opts.auth } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body, headers: res.headers, text };
  };
  const login: AdminFixture['login'] = (realm, username, password) =>
    call('POST', `${AUTH}/oauth/connect/user/login`, { body: { realm, username, password } });
  const bearer: AdminFixture['bearer'] = async (realm, username, password) => {
    const r = await login(realm, username, password);
    if (r.status !== 200) throw new Error(`${username} could not sign in: ${r.status} ${r.text}`);
    return `Bearer ${r.body.access_token}`;
  };

  async function browserSignIn(realm: string, clientId: string, username: string, password: string) {
    const verifier = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const page = await fetch(`${url}${AUTH}/realms/${realm}/protocol/openid-connect/auth?${params}`, { redirect: 'manual' });
    const html = await page.text();
    const action = /<form id="kc-form-login" method="post" action="([^"]+)">/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    const request = /<input type="hidden" name="request" value="([^"]+)">/
      .exec(html)?.[1]
      ?.replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"');
    if (!action || !request) throw new Error(`no login form (${page.status}): ${html.slice(0, 300)}`);
    const cookies = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const target = new URL(action, config.PUBLIC_URL);
    const done = await fetch(`${url}${target.pathname}${target.search}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: config.PUBLIC_URL, cookie: cookies },
      body: new URLSearchParams({ request, username, password }).toString(),
    });
    if (done.status !== 302 || !done.headers.get('location')?.startsWith(REDIRECT))
      throw new Error(`sign-in through the page failed: ${done.status} ${(await done.text()).slice(0, 300)}`);
  }

  const platform = await bearer(values.realm, values.admin_username, values.admin_password);
  return {
    url,
    config,
    running,
    realm: values.realm,
    adminPassword: values.admin_password,
    platform,
    call,
    login,
    bearer,
    browserSignIn,
    async stop() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every secret the fixture's answers may never carry, found anywhere in a JSON text. */
export function secretsIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => s && text.includes(s));
}
