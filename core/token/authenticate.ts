import type { Clock } from '../clock';
import type { CallContext } from '../context';
import { AuthenticationFailed } from './errors';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import type { SecretHasher, SecretVerifier } from './secrets';
import { noThrottle, type FailureThrottle } from './throttle';

/** The public client every realm has, used by the login endpoint when no client_id is given. */
export const LOGIN_CLIENT_ID = 'platform-login';

export interface AuthenticatorDeps {
  store: TokenStore;
  secrets: SecretVerifier;
  hasher: SecretHasher;
  clock: Clock;
  lockout: { threshold: number; seconds: number };
  throttle?: FailureThrottle;
}

/**
 * Client and user authentication. Rules: one answer (401 Authentication failed) for every bad
 * credential; a locked user fails whatever the password and does not extend the lock; failures are
 * counted atomically in the store; a hash made with weaker parameters is redone after a success
 * (once, even under concurrent logins); every step runs under the per-address failure throttle.
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  const { store, secrets, clock } = deps;
  const throttle = deps.throttle ?? noThrottle;
  const rehashing = new Set<string>();

  /** Replaces an outdated hash in the background; a compare-and-set never overwrites a newer secret. */
  function rehashIfOutdated(id: string, secret: string, stored: string, save: (next: string) => boolean) {
    if (!deps.hasher.outdated(stored) || rehashing.has(id)) return;
    rehashing.add(id);
    void deps.hasher.hash(secret).then(save).catch(() => false).finally(() => rehashing.delete(id));
  }

  async function client(realm: RealmRecord, clientId: string, secret: string | undefined): Promise<ClientRecord> {
    const found = store.clients.get(realm.id, clientId);
    const ok = await secrets.verify(secret ?? '', found?.secretHash);
    if (!found || !ok || !found.enabled) throw new AuthenticationFailed('invalid_client');
    rehashIfOutdated(found.id, secret ?? '', found.secretHash!, (next) => store.clients.replaceSecretHash(found.id, found.secretHash!, next));
    return found;
  }

  return {
    /** Runs an authenticating step under the per-address failure throttle. */
    async throttled<T>(ctx: CallContext, step: () => Promise<T>): Promise<T> {
      const key = ctx.clientAddress ?? 'unknown';
      throttle.check(key);
      try {
        return await step();
      } catch (err) {
        if (err instanceof AuthenticationFailed) throttle.fail(key);
        throw err;
      }
    },

    client,

    /** A named client for the login endpoint: public ones need no secret, confidential ones do. */
    async loginClient(realm: RealmRecord, clientId: string | undefined, secret: string | undefined): Promise<ClientRecord> {
      const found = store.clients.get(realm.id, clientId || LOGIN_CLIENT_ID);
      if (found && found.secretHash === null && found.enabled) return found;
      return client(realm, clientId || LOGIN_CLIENT_ID, secret);
    },

    async user(realm: RealmRecord, username: string, password: string): Promise<UserRecord> {
      const found = store.users.get(realm.id, username);
      const now = clock.now();
      const locked = found?.lockedUntil != null && found.lockedUntil > now;
      const ok = await secrets.verify(password, locked ? undefined : found?.passwordHash);
      if (found && !locked) {
        if (ok) {
          store.users.recordLoginSuccess(found.id);
          rehashIfOutdated(found.id, password, found.passwordHash, (next) => store.users.replacePasswordHash(found.id, found.passwordHash, next));
        } else {
          const { threshold, seconds } = deps.lockout;
          store.users.recordLoginFailure(found.id, { threshold, lockedUntil: now + seconds * 1000, now });
        }
      }
      if (!found || !ok || locked || !found.enabled) throw new AuthenticationFailed('invalid_grant');
      return found;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
