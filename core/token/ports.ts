import type { JWK } from 'jose';

export interface RealmRecord {
  id: string;
  name: string;
  enabled: boolean;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
  /** Hex HMAC key of the realm's refresh tokens (HS512); never leaves the token service. */
  refreshSecret: string;
  createdAt: number;
}

export interface ClientRecord {
  id: string;
  realmId: string;
  clientId: string;
  /** null for a public client (no secret; user login only). */
  secretHash: string | null;
  enabled: boolean;
  roles: string[];
  scopes: string[];
  tenantId: string;
  createdAt: number;
}

export interface UserRecord {
  id: string;
  realmId: string;
  username: string;
  passwordHash: string;
  enabled: boolean;
  roles: string[];
  tenantId: string;
  email: string | null;
  emailVerified: boolean;
  failedLogins: number;
  lockedUntil: number | null;
  createdAt: number;
}

export interface SessionRecord {
  id: string;
  realmId: string;
  clientId: string;
  userId: string | null;
  scope: string;
  refreshJti: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface KeyRecord {
  kid: string;
  realmId: string;
  alg: 'RS256';
  privateKeyPem: string;
  publicJwk: JWK;
  createdAt: number;
}

/** What a wrong password does: counted atomically; at `threshold` the count restarts and the user is locked. */
export interface LoginFailurePolicy {
  threshold: number;
  lockedUntil: number;
  now: number;
}

/** Everything the token service keeps. Times are epoch milliseconds. */
export interface TokenStore {
  realms: {
    get(id: string): RealmRecord | undefined;
    list(): RealmRecord[];
    insert(realm: RealmRecord): void;
    setEnabled(id: string, enabled: boolean): boolean;
    getDefaultId(): string | undefined;
    setDefaultId(id: string): void;
  };
  clients: {
    get(realmId: string, clientId: string): ClientRecord | undefined;
    list(realmId: string): ClientRecord[];
    insert(client: ClientRecord): void;
    setEnabled(realmId: string, clientId: string, enabled: boolean): boolean;
    setSecretHash(realmId: string, clientId: string, secretHash: string): boolean;
    /** Compare-and-set (a rehash never overwrites a secret rotated meanwhile). */
    replaceSecretHash(id: string, expected: string, next: string): boolean;
  };
  users: {
    get(realmId: string, username: string): UserRecord | undefined;
    getById(id: string): UserRecord | undefined;
    list(realmId: string): UserRecord[];
    insert(user: UserRecord): void;
    setEnabled(realmId: string, username: string, enabled: boolean): boolean;
    /** Sets a new password hash and clears any lock. */
    setPasswordHash(realmId: string, username: string, passwordHash: string): boolean;
    /** Compare-and-set (a rehash never overwrites a password changed meanwhile). */
    replacePasswordHash(id: string, expected: string, next: string): boolean;
    /** One atomic step: concurrent failures all count. A locked user's failures do not extend the lock. */
    recordLoginFailure(id: string, policy: LoginFailurePolicy): void;
    recordLoginSuccess(id: string): void;
  };
  sessions: {
    get(id: string): SessionRecord | undefined;
    /** Inserts with group commit: resolves once the session is on disk (one transaction per event-loop turn). */
    write(session: SessionRecord): Promise<void>;
    /** Compare-and-set of the current refresh token id; false when it was not `expectedJti`. */
    rotate(id: string, expectedJti: string, nextJti: string, expiresAt: number): boolean;
    revoke(id: string, at: number): void;
    /** Ends every open session of a realm, or of one of its users or clients; returns how many. */
    revokeAll(of: { realmId: string; userId?: string; clientId?: string }, at: number): number;
    /** Deletes sessions that expired before `before`; returns how many. */
    prune(before: number): number;
  };
  keys: {
    active(realmId: string): KeyRecord | undefined;
    /** The kid of the realm's newest key (cheap: for every token). */
    activeKid(realmId: string): string | undefined;
    get(realmId: string, kid: string): KeyRecord | undefined;
    list(realmId: string): KeyRecord[];
    insert(key: KeyRecord): void;
  };
  /**
   * Failed authentications per caller address in fixed windows, shared by every worker process.
   * An attempt in flight holds a reserved place in the count, released if it succeeds.
   */
  failures: {
    /** The failures and reservations counted for `key` in its current window (0 when it is over). */
    count(key: string, now: number): FailureWindow;
    add(key: string, windowMs: number, now: number): void;
    /** One atomic step: counts one more for `key` unless that reaches past `limit`; `reserved` says which. */
    reserve(key: string, limit: number, windowMs: number, now: number): FailureWindow & { reserved: boolean };
    /** Gives a reservation back, if its window (`resetAt`) is still the current one. */
    release(key: string, resetAt: number): void;
    prune(now: number): number;
  };
  /** The server-side key of the keyed hash of generated client secrets (made once, kept in the store). */
  secretHashKey(): Buffer;
}

export interface FailureWindow {
  count: number;
  resetAt: number;
}
