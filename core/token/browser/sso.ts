import { uuidv7 } from '../../shared/ids';
import type { BrowserSessionRecord, RealmRecord, UserRecord } from '../ports';
import { ssoCookieName, type CookieSet } from './answers';
import type { BrowserDeps } from './deps';
import { newSecretValue, secretValueHash } from './secrets';

export interface SignedIn {
  browser: BrowserSessionRecord;
  user: UserRecord;
}

/** The browser session the realm's SSO cookie names, open, or undefined. */
export async function openBrowserSession(deps: BrowserDeps, realm: RealmRecord, cookies: Record<string, string>) {
  const value = cookies[ssoCookieName(realm.id)];
  if (!value || value.length > 100) return undefined;
  const browser = await deps.store.browserSessions.byCookie(secretValueHash(value));
  if (!browser || browser.realmId !== realm.id || browser.revokedAt !== null || browser.expiresAt <= deps.clock.now()) return undefined;
  return browser;
}

/** The person the SSO cookie signs in: its session open, the account enabled and not locked for everyone. */
export async function signedIn(deps: BrowserDeps, realm: RealmRecord, cookies: Record<string, string>): Promise<SignedIn | undefined> {
  const browser = await openBrowserSession(deps, realm, cookies);
  if (!browser) return undefined;
  const user = await deps.store.users.getById(browser.userId);
  if (!user?.enabled || user.realmId !== realm.id || (await deps.lockedForAll(user))) return undefined;
  return { browser, user };
}

/**
 * A new browser session for a person who just typed their password: always a new id and a new
 * cookie value (session fixation), the browser's previous one for the realm ended.
 */
export async function startBrowserSession(
  deps: BrowserDeps,
  realm: RealmRecord,
  user: UserRecord,
  cookies: Record<string, string>,
): Promise<{ browser: BrowserSessionRecord; cookies: CookieSet[] }> {
  const previous = await openBrowserSession(deps, realm, cookies);
  if (previous) await deps.endBrowserSession(realm, previous.id);
  const now = deps.clock.now();
  const value = newSecretValue();
  const browser: BrowserSessionRecord = {
    id: uuidv7(now),
    realmId: realm.id,
    userId: user.id,
    cookieHash: secretValueHash(value),
    authTime: now,
    createdAt: now,
    expiresAt: now + deps.ssoSessionMs,
    revokedAt: null,
  };
  await deps.store.browserSessions.insert(browser);
  return { browser, cookies: [{ name: ssoCookieName(realm.id), value, maxAgeSec: Math.floor(deps.ssoSessionMs / 1000) }] };
}

export const clearSso = (realm: RealmRecord): CookieSet => ({ name: ssoCookieName(realm.id), value: '', maxAgeSec: 0 });
