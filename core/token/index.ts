import { systemClock, type Clock } from '../shared/clock';
import type { RevocationFeed } from '../shared/auth/revocation-feed';
import type { KeySource } from '../shared/auth/verifier';
import { createTokenAdmin, type TokenAdmin } from './admin';
import { createTokenAdminApi, type TokenAdminApi } from './admin-api';
import { noAudit } from '../shared/admin/audit';
import { createAuthenticator } from './authenticate';
import { createKeyRing, generateRealmKey, type KeyGenerator, type KeyRing } from './keys';
import type { TokenStore, TokenStores } from './ports';
import { createFairPool, type FairPool, type FairPoolOptions } from '../shared/fair-pool';
import { keyedHasher } from './keyed-hash';
import { scryptHasher, type SecretHasher } from './secrets';
import { createSecretVerifier } from './secret-verifier';
import { createGuards, hashingPoolOptions, lockedForAll } from './admission';
import { DEFAULT_LOCKOUT, userAccount, type LockoutPolicy } from './lockout';
import type { TokenService } from './service';
import { createTokenService } from './token-service';
import { createAccount } from './account';

export { pgRevocationReader, sqliteRevocationReader } from './revocation-reader';
import type { Metrics } from '../shared/telemetry/metrics';
import { tokenTelemetry } from './telemetry';
import type { AuditTrail } from '../shared/admin/audit';
import { noSecurityEvents, securityEvents } from './security-events';

export interface TokenCore {
  service: TokenService;
  admin: TokenAdmin;
  /** The admin API's realms, clients, users and sessions, checked per administrator and audited (admin-api). */
  adminApi: TokenAdminApi;
  /** The audit trail it records in (the platform's, or nowhere): the token subgraph's `auditEvents` reads it. */
  audit: AuditTrail;
  store: TokenStore;
  keys: KeyRing;
  /** The realms' public keys, for verifiers in this process. */
  keySource: KeySource;
  /** The revoked-sessions feed of its store, for verifiers in this process. */
  revocations: RevocationFeed;
  /** Every web origin registered by a client (CORS). */
  webOrigins(): Promise<string[]>;
  close(): Promise<void>;
}

export interface TokenCoreOptions {
  /**
   * Its ports' adapters, as the composition root picked them: `sqliteTokenStores(file)`
   * (core/token/sqlite) or `pgTokenStores(pool)` (core/token/postgres), with Redis's throttles
   * (core/token/redis) or the store's own. Closing the core closes `stores.store`.
   */
  stores: TokenStores;
  publicUrl: string;
  clock?: Clock;
  /** Wrong passwords per account and source, and per account, before a lock, and the window they are counted in (lockout.ts). */
  lockout?: Partial<LockoutPolicy>;
  /** Failed authentications allowed per caller source per minute; unlimited when absent. */
  authFailuresPerMinute?: number;
  /**
   * Failed slow checks per realm per minute; past it, sources with failures of their own get 429
   * before any hashing (clean ones are still checked); unlimited when absent.
   */
  realmFailuresPerMinute?: number;
  /** RFC 9068 `aud` of access tokens; `account` when absent. */
  audience?: readonly string[];
  /**
   * Slow hashes (passwords) in flight at once, and of one caller address; 1 and 1 by default
   * (see docs/decisions.md).
   */
  hashing?: Partial<FairPoolOptions>;
  /** The pool slow hashes wait in (one shared by a machine's workers); a pool of `hashing` when absent. */
  pool?: FairPool;
  /** Ports with real crypto by default; tests pass cheaper ones. */
  hasher?: SecretHasher;
  generateKey?: KeyGenerator;
  /** Where tokens issued and refused, and lockouts, are counted (telemetry.ts); nothing when absent. */
  metrics?: Metrics;
  /** After sessions were ended here: resolves once this process's revoked-sessions list holds them. */
  revoked?: () => Promise<void>;
  /** How long single sign-on lasts after a person typed their password (10 hours when absent). */
  ssoSessionSeconds?: number;
  /** Where sign-ins, their failures, lockouts, revocations and logouts are recorded (security-events.ts); nowhere when absent. */
  audit?: AuditTrail;
}

/** Wires the token service over the adapters it is given. */
export async function openTokenCore(opts: TokenCoreOptions): Promise<TokenCore> {
  const clock = opts.clock ?? systemClock;
  const { store, throttles: failures } = opts.stores;
  const keys = createKeyRing(store);
  const hasher = opts.hasher ?? scryptHasher();
  const keyed = keyedHasher(await store.secretHashKey());
  const now = () => clock.now();
  const telemetry = tokenTelemetry(opts.metrics);
  const events = opts.audit ? securityEvents(opts.audit, { clock }) : noSecurityEvents;
  // Lockouts are counted in the database even with Redis: they never fail open.
  const guards = createGuards({
    lockouts: store.failures,
    throttles: failures,
    lockout: { ...DEFAULT_LOCKOUT, ...opts.lockout },
    sourceFailuresPerMinute: opts.authFailuresPerMinute,
    realmFailuresPerMinute: opts.realmFailuresPerMinute,
    now,
  });
  const auth = createAuthenticator({
    store,
    hasher,
    keyed,
    pool: opts.pool ?? createFairPool({ ...hashingPoolOptions(1), ...opts.hashing }),
    secrets: createSecretVerifier({ hasher, keyed, now }),
    guards,
    onLockout: telemetry.lockout,
    events,
  });
  const audit = opts.audit ?? noAudit;
  const admin = createTokenAdmin({
    store,
    clock,
    hasher,
    keyed,
    generateKey: opts.generateKey ?? generateRealmKey,
    keyAdded: (realmId) => keys.forget(realmId),
    lockedForAll: (user) => lockedForAll(guards, userAccount(user.realmId, user.username, user)),
    revoked: opts.revoked,
  });
  const service: TokenService = {
    ...createTokenService({
      store,
      keys,
      auth,
      clock,
      publicUrl: opts.publicUrl,
      audience: opts.audience ?? ['account'],
      telemetry,
      revoked: opts.revoked,
      lockedForAll: (user) => lockedForAll(guards, userAccount(user.realmId, user.username, user)),
      ssoSessionSeconds: opts.ssoSessionSeconds,
      events,
    }),
    ...createAccount({ admin, store, clock, audit }),
  };
  return {
    service,
    admin,
    adminApi: createTokenAdminApi({ admin, store, audit }),
    audit,
    store,
    keys,
    keySource: { key: (realmId, kid) => keys.verificationKey(realmId, kid) },
    revocations: store.revocations,
    webOrigins: () => store.clients.webOrigins(),
    close: () => {
      events.flush();
      return store.close();
    },
  };
}
