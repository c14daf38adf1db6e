import type { Ctx } from '../shared/context';
import { RateLimited } from '../shared/errors';
import { createAttempts, type Attempt, type Guards } from './attempt';
import { AuthenticationFailed } from './errors';
import type { FairPool } from '../shared/fair-pool';
import { isGeneratedSecret, type KeyedHasher } from './keyed-hash';
import { clientAccount, sourceOf, userAccount } from './lockout';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import type { SecretHasher } from './secrets';
import type { SecretVerifier } from './secret-verifier';
import { noSecurityEvents, type SecurityEvents } from './security-events';

/** The public client every realm has, used by the login endpoint when no client_id is given. */
export const LOGIN_CLIENT_ID = 'platform-login';

export interface AuthenticatorDeps {
  store: TokenStore;
  secrets: SecretVerifier;
  hasher: SecretHasher;
  keyed: KeyedHasher;
  /** Where slow hashes wait their turn: clean callers first, then fairly between sources. */
  pool: FairPool;
  /** The failure counts every check takes its places in (admission.ts). */
  guards: Guards;
  /** Told when failed attempts lock an account (for a source, or for everyone) or throttle a source (the metrics count them). */
  onLockout?: () => void;
  /** Where sign-ins, refused credentials and lockouts are recorded (the audit trail); nowhere when absent. */
  events?: SecurityEvents;
}

/**
 * Client and user authentication. Rules: one answer (401 Authentication failed) for every bad
 * credential; an account locked for the caller's source (or for everyone) fails whatever the
 * secret, without hashing, and does not extend the lock; every step runs under the failure counts
 * (per source, per account and source, per account, per realm), its places reserved before any
 * hash (attempt.ts, admission.ts); an scrypt hash made with weaker parameters is redone after a
 * success, and a generated client secret still kept as scrypt gets its keyed hash (once, even
 * under concurrent logins; a compare-and-set never overwrites a newer secret).
 */
export function createAuthenticator(deps: AuthenticatorDeps) {
  const { store, secrets, keyed } = deps;
  const events = deps.events ?? noSecurityEvents;
  const attempts = createAttempts({
    guards: deps.guards,
    pool: deps.pool,
    locked: ({ source, account, scope }) => {
      deps.onLockout?.();
      events.lockout({ realm: account?.realm, kind: account?.kind, name: account?.name, address: source, scope });
    },
  });
  const rehashing = new Set<string>();

  function rehashIfOutdated(id: string, secret: string, stored: string, save: (next: string) => Promise<boolean>) {
    if (!deps.hasher.outdated(stored) || rehashing.has(id)) return;
    rehashing.add(id);
    void deps.hasher
      .hash(secret)
      .then(save)
      .catch(() => false)
      .finally(() => rehashing.delete(id));
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
    // An unknown client's check is a keyed one: it has no account to count.
    const account = found ? clientAccount(found) : { realm: realm.id, key: 'c|none' };
    const ok = await secrets.verify(attempt, account, secret ?? '', found?.secretHash, 'keyed');
    if (!found || !ok || !found.enabled) {
      const reason = !found ? 'no such client' : !ok ? 'wrong client secret, or locked' : 'client disabled';
      events.clientFailure({ realm: realm.id, clientId, address: attempt.address, reason });
      throw new AuthenticationFailed('invalid_client');
    }
    await upgradeClientHash(found, secret ?? '');
    return found;
  }

  return {
    /** Runs an authenticating step under the failure counts of the caller's source. */
    throttled<T>(ctx: Ctx, step: (attempt: Attempt) => Promise<T>): Promise<T> {
      // The attempt carries the caller's address for the security events its checks record.
      return attempts.throttled(sourceOf(ctx.clientAddress), (attempt) => step({ ...attempt, address: ctx.clientAddress }));
    },

    client,

    /** A named client for the login endpoint: public ones need no secret, confidential ones do. */
    async loginClient(
      attempt: Attempt,
      realm: RealmRecord,
      clientId: string | undefined,
      secret: string | undefined,
    ): Promise<ClientRecord> {
      const found = await store.clients.get(realm.id, clientId || LOGIN_CLIENT_ID);
      if (found && found.secretHash === null && found.enabled) return found;
      return client(attempt, realm, clientId || LOGIN_CLIENT_ID, secret);
    },

    async user(attempt: Attempt, realm: RealmRecord, username: string, password: string): Promise<UserRecord> {
      const found = await store.users.get(realm.id, username);
      let ok: boolean;
      try {
        ok = await secrets.verify(attempt, userAccount(realm.id, username, found), password, found?.passwordHash, 'slow');
      } catch (err) {
        // The realm's failure budget spent (429): refused before any hashing.
        if (err instanceof RateLimited)
          events.signIn({ realm: realm.id, username, address: attempt.address, ok: false, reason: 'throttled' });
        throw err;
      }
      if (!found || !ok || !found.enabled) {
        const reason = !found ? 'no such user' : !ok ? 'wrong password, or locked' : 'account disabled';
        events.signIn({ realm: realm.id, username, address: attempt.address, ok: false, reason });
        throw new AuthenticationFailed('invalid_grant');
      }
      events.signIn({ realm: realm.id, username: found.username, address: attempt.address, ok: true });
      rehashIfOutdated(found.id, password, found.passwordHash, (next) =>
        store.users.replacePasswordHash(found.id, found.passwordHash, next),
      );
      return found;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
