import pino from 'pino';
import { openTokenCore, type TokenCore } from '../core/token';
import { createRestApp } from '../rest/app';
import type { Clock } from '../core/clock';

export const PUBLIC_URL = 'http://platform.test';

/** A clock tests can move. */
export function testClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

export interface TokenFixture {
  core: TokenCore;
  clock: ReturnType<typeof testClock>;
  realm: string;
  otherRealm: string;
  client: { client_id: string; client_secret: string };
  user: { username: string; password: string };
  app: ReturnType<typeof createRestApp>;
}

/**
 * An in-memory token service with a realm, a confidential client (roles search:read, search:write),
 * a user, and a second realm, behind the real REST app.
 */
export async function tokenFixture(opts: { lockout?: { threshold: number; seconds: number }; bodyLimitBytes?: number } = {}): Promise<TokenFixture> {
  const clock = testClock();
  const core = openTokenCore({ file: ':memory:', publicUrl: PUBLIC_URL, clock, lockout: opts.lockout });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  const otherRealm = (await core.admin.createRealm({ name: 'other' })).id;
  const c = await core.admin.createClient({ realm, clientId: 'svc-a', roles: ['search:read', 'search:write'], scopes: ['openid', 'profile', 'email', 'search'] });
  await core.admin.createUser({ realm, username: 'alice', password: 'correct horse battery', roles: ['search:read'], tenantId: 'tenant-a' });
  const app = createRestApp({ token: core.service }, { publicUrl: PUBLIC_URL, log: pino({ level: 'silent' }), bodyLimitBytes: opts.bodyLimitBytes });
  return {
    core, clock, realm, otherRealm, app,
    client: { client_id: 'svc-a', client_secret: c.client_secret },
    user: { username: 'alice', password: 'correct horse battery' },
  };
}
