import type { Clock } from '../shared/clock';
import type { Ctx } from '../shared/context';
import { createAttempts, type Attempt } from './attempt';
import { AuthenticationFailed } from './errors';
import type { FairPool } from '../shared/fair-pool';
import { isGeneratedSecret, type KeyedHasher } from './keyed-hash';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import type { SecretHasher } from './secrets';
import type { SecretVerifier } from './secret-verifier';
import { noThrottle, type FailureThrottle } from './throttle';

/** The public client every realm has, used by the login endpoint when no client_id is given. */
export const LOGIN_CLIENT_ID = 'platform-login';

export interface AuthenticatorDeps {
  store: TokenStore;
  secrets: SecretVerifier;
  hasher: SecretHasher;
  keyed: KeyedHasher;
  /** Where slow hashes wait their turn, fairly between caller addresses. */
  pool: FairPool;
  clock: Clock;
  lockout: { threshold: number; seconds: number };
  throttle?: FailureThrottle;
  /** Told when failed attempts lock an account or throttle a caller address (the metrics count them). */
  onLockout?: () => void;
}

/**
 * Client and user authentication. Rules: one answer (401 Authentication failed) for every bad
 * credential; a locked user fails whatever the password and does not extend the lock; failures are
 * counted atomically in the store; every step runs under the per-address failure throttle, its
 * place in the count reserved before any hash (attempt.ts); an scrypt hash made with weaker
 * parameters is redone after a success, and a generated client secret still kept as scrypt gets
 * its keyed hash (once, even under concurrent logins; a compare-and-set never overwrites a newer
 * secret).
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  const { store, secrets, clock, keyed } = deps;
  const attempts = createAttempts({ throttle: deps.throttle ?? noThrottle, pool: deps.pool, throttled: deps.onLockout });
  const rehashing = new Set<string>();

  function rehashIfOutdated(id: string, secret: string, stored: string, save: (next: string) => Promise<boolean>) {
    if (!deps.hasher.outdated(stored) || rehashing.has(id)) return;
    rehashing.add(id);
    void deps.hasher.hash(secret).then(save).catch(() => false).finally(() => rehashing.delete(id));
  }

  /** A generated secret's keyed hash is kept before the answer (later requests skip scrypt); a rehash runs behind it. */
  async function upgradeClientHash(found: ClientRecord, secret: string) {
    const stored = found.secretHash!;
    if (keyed.recognizes(stored)) return;
    const save = (next: string) => store.clients.replaceSecretHash(found.id, stored, next);
    if (isGeneratedSecret(secret)) await save(keyed.hash(secret));
    else rehashIfOutdated(found.id, secret, stored, save);
  }

  async function client(attempt: Attempt, realm: RealmRecord, clientId: string, secret: string | undefined): Promise<ClientRecord> {
    const found = await store.clients.get(realm.id, clientId);
    const ok = await secrets.verify(attempt, secret ?? '', found?.secretHash, 'keyed');
    if (!found || !ok || !found.enabled) throw new AuthenticationFailed('invalid_client');
    await upgradeClientHash(found, secret ?? '');
    return found;
  }

  return {
    /** Runs an authenticating step under the per-address failure throttle. */
    throttled<T>(ctx: Ctx, step: (attempt: Attempt) => Promise<T>): Promise<T> {
      return attempts.throttled(ctx.clientAddress ?? 'unknown', step);
    },

    client,

    /** A named client for the login endpoint: public ones need no secret, confidential ones do. */
    async loginClient(attempt: Attempt, realm: RealmRecord, clientId: string | undefined, secret: string | undefined): Promise<ClientRecord> {
      const found = await store.clients.get(realm.id, clientId || LOGIN_CLIENT_ID);
      if (found && found.secretHash === null && found.enabled) return found;
      return client(attempt, realm, clientId || LOGIN_CLIENT_ID, secret);
    },

    async user(attempt: Attempt, realm: RealmRecord, username: string, password: string): Promise<UserRecord> {
      const found = await store.users.get(realm.id, username);
      const now = clock.now();
      const locked = found?.lockedUntil != null && found.lockedUntil > now;
      const ok = await secrets.verify(attempt, password, locked ? undefined : found?.passwordHash, 'slow');
      if (found && !locked) {
        if (ok) {
          await store.users.recordLoginSuccess(found.id);
          rehashIfOutdated(found.id, password, found.passwordHash, (next) => store.users.replacePasswordHash(found.id, found.passwordHash, next));
        } else {
          const { threshold, seconds } = deps.lockout;
          if (await store.users.recordLoginFailure(found.id, { threshold, lockedUntil: now + seconds * 1000, now })) deps.onLockout?.();
        }
      }
      if (!found || !ok || locked || !found.enabled) throw new AuthenticationFailed('invalid_grant');
      return found;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
