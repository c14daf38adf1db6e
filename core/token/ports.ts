import type { JWK } from 'jose';
import type { Keyset, KeysetRows } from '../shared/admin/paging';
import type { RevocationFeed } from '../shared/auth/revocation-feed';

export interface RealmRecord {
  id: string;
  name: string;
  enabled: boolean;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
  /** Hex HMAC key of the realm's refresh tokens (HS512); never leaves the token service. */
  refreshSecret: string;
  createdAt: number;
  /** 1 when made, +1 on every change (optimistic concurrency of the admin API: ETag, If-Match). */
  version: number;
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
  /**
   * Where the authorization endpoint may send this client's codes: exact URIs (RFC 9700 §4.1.3), or
   * paths beginning with `/`, on the platform's own PUBLIC_URL (its own pages).
   */
  redirectUris: string[];
  /** Where RP-initiated logout may send the browser back to (the same forms). */
  postLogoutRedirectUris: string[];
  /** Origins (`scheme://host[:port]`) whose pages may call the platform with this realm's tokens (CORS). */
  webOrigins: string[];
  createdAt: number;
  /** 1 when made, +1 on every change. */
  version: number;
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
  createdAt: number;
  /** 1 when made, +1 on every change. */
  version: number;
}

export interface SessionRecord {
  id: string;
  realmId: string;
  clientId: string;
  userId: string | null;
  scope: string;
  refreshJti: string;
  /** The browser (single sign-on) session it was started under, when a person signed in through the login page. */
  browserSessionId: string | null;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

/**
 * A person signed in through the login page, in one browser (the SSO cookie): every app of the
 * realm signs in under it without a second password, and its end ends their sessions.
 */
export interface BrowserSessionRecord {
  id: string;
  realmId: string;
  userId: string;
  /** SHA-256 (hex) of the cookie's value; the value itself is never kept. */
  cookieHash: string;
  /** When the person last typed their password (OIDC `auth_time`), epoch ms. */
  authTime: number;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

/** An authorization code (RFC 6749 §4.1.2), kept by its SHA-256 until used or expired. */
export interface AuthCodeRecord {
  codeHash: string;
  realmId: string;
  clientId: string;
  userId: string;
  browserSessionId: string;
  redirectUri: string;
  scope: string;
  nonce: string | null;
  /** RFC 7636 S256 challenge; null when the (confidential) client sent none. */
  codeChallenge: string | null;
  authTime: number;
  createdAt: number;
  expiresAt: number;
  /** When it was first exchanged (null: never). */
  usedAt: number | null;
  /** The token session its first exchange started: a second exchange ends it (RFC 6749 §4.1.2). */
  sessionId: string | null;
}

export interface KeyRecord {
  kid: string;
  realmId: string;
  alg: 'RS256';
  privateKeyPem: string;
  publicJwk: JWK;
  createdAt: number;
}

/**
 * Everything the token service keeps, behind one port whatever the engine (SQLite embedded, or
 * PostgreSQL shared by replicas); every method answers a promise. Times are epoch milliseconds.
 * The steps that decide something under concurrency (refresh rotation, hash upgrades, failure
 * count reservations, revocations) are each one atomic step in the store, so they
 * hold across the processes and replicas that share it (test/core/token/store-contracts.ts).
 */
/**
 * The outcome of an update: the record as written; no such record; another change came first
 * (`version` is the current one); a unique name already taken.
 */
export type Updated<R> = { status: 'ok'; record: R } | { status: 'missing' } | { status: 'stale'; version: number } | { status: 'taken' };

export type RealmPatch = Partial<Pick<RealmRecord, 'name' | 'enabled' | 'accessTokenLifespan' | 'refreshTokenLifespan'>>;
export type ClientPatch = Partial<
  Pick<ClientRecord, 'enabled' | 'roles' | 'scopes' | 'tenantId' | 'redirectUris' | 'postLogoutRedirectUris' | 'webOrigins' | 'secretHash'>
>;
/** `passwordHash` and a client's `secretHash`: a new credential written on the version an administrator's checks read. */
export type UserPatch = Partial<Pick<UserRecord, 'enabled' | 'roles' | 'email' | 'emailVerified' | 'tenantId' | 'passwordHash'>>;

/**
 * A page of a realm's users (the admin API's list), read in the store: `q` a substring of the
 * username in any case (`%` and `_` are plain characters), `enabled`, `role` held. Sorted by
 * `username` in any case (its lower case) or `created_at`, then by `id`.
 */
export interface UserPageQuery extends Keyset<'username' | 'created_at'> {
  q?: string;
  enabled?: boolean;
  role?: string;
}
/** A page of a realm's clients: `q` a substring of the client id in any case, `enabled`, `public` (no secret). Sorted by `client_id` or `created_at`, then by `client_id`. */
export interface ClientPageQuery extends Keyset<'client_id' | 'created_at'> {
  q?: string;
  enabled?: boolean;
  public?: boolean;
}

export interface TokenStore {
  realms: {
    get(id: string): Promise<RealmRecord | undefined>;
    /** Names are unique in any case, and found in any case (Keycloak's paths name realms so). */
    getByName(name: string): Promise<RealmRecord | undefined>;
    list(): Promise<RealmRecord[]>;
    /**
     * A new realm with its first signing key and its clients, all or nothing; false (nothing
     * written) when its id or name, in any case, is taken. It becomes the default realm when there
     * is none yet, in the same step.
     */
    create(realm: RealmRecord, first: { key: KeyRecord; clients: ClientRecord[] }): Promise<boolean>;
    setEnabled(id: string, enabled: boolean): Promise<boolean>;
    /**
     * Changes the fields given, in one compare-and-set step when `ifVersion` is given (another
     * change meanwhile: `stale`, nothing written); a new name taken by another realm in any case: `taken`.
     */
    update(id: string, patch: RealmPatch, ifVersion?: number): Promise<Updated<RealmRecord>>;
    getDefaultId(): Promise<string | undefined>;
    setDefaultId(id: string): Promise<void>;
  };
  clients: {
    get(realmId: string, clientId: string): Promise<ClientRecord | undefined>;
    list(realmId: string): Promise<ClientRecord[]>;
    /** Up to `limit + 1` clients after `after`, and how many match over every page (core/shared/admin/paging.ts `Keyset`). */
    page(realmId: string, query: ClientPageQuery): Promise<KeysetRows<ClientRecord>>;
    /** False (nothing written) when the realm already has a client of that id. */
    insert(client: ClientRecord): Promise<boolean>;
    setEnabled(realmId: string, clientId: string, enabled: boolean): Promise<boolean>;
    /** A confidential client's new secret; false for a public or unknown client. */
    setSecretHash(realmId: string, clientId: string, secretHash: string): Promise<boolean>;
    /** Compare-and-set (a rehash never overwrites a secret rotated meanwhile). */
    replaceSecretHash(id: string, expected: string, next: string): Promise<boolean>;
    /** Sets a client's browser settings (those given); false for an unknown client. */
    setBrowserSettings(
      realmId: string,
      clientId: string,
      settings: Partial<Pick<ClientRecord, 'redirectUris' | 'postLogoutRedirectUris' | 'webOrigins'>>,
    ): Promise<boolean>;
    /** Changes the fields given, compare-and-set on `ifVersion` when given. */
    update(realmId: string, clientId: string, patch: ClientPatch, ifVersion?: number): Promise<Updated<ClientRecord>>;
    /** Every web origin an enabled client of any enabled realm registered (CORS). */
    webOrigins(): Promise<string[]>;
  };
  users: {
    /** Usernames are unique per realm in any case, and found in any case. */
    get(realmId: string, username: string): Promise<UserRecord | undefined>;
    getById(id: string): Promise<UserRecord | undefined>;
    list(realmId: string): Promise<UserRecord[]>;
    /** Up to `limit + 1` users after `after`, and how many match over every page (core/shared/admin/paging.ts `Keyset`). */
    page(realmId: string, query: UserPageQuery): Promise<KeysetRows<UserRecord>>;
    /** False (nothing written) when the realm already has that username, in any case. */
    insert(user: UserRecord): Promise<boolean>;
    setEnabled(realmId: string, username: string, enabled: boolean): Promise<boolean>;
    /** Sets a new password hash (its account's failure counts start afresh: lockout.ts). */
    setPasswordHash(realmId: string, username: string, passwordHash: string): Promise<boolean>;
    /** Compare-and-set (a rehash never overwrites a password changed meanwhile). */
    replacePasswordHash(id: string, expected: string, next: string): Promise<boolean>;
    /** Changes the fields given, compare-and-set on `ifVersion` when given. */
    update(realmId: string, username: string, patch: UserPatch, ifVersion?: number): Promise<Updated<UserRecord>>;
  };
  sessions: {
    get(id: string): Promise<SessionRecord | undefined>;
    /** Inserts with group commit: resolves once the session is kept (the writes of one moment go together). */
    write(session: SessionRecord): Promise<void>;
    /** Compare-and-set of the current refresh token id; false when it was not `expectedJti` (or the session is revoked). */
    rotate(id: string, expectedJti: string, nextJti: string, expiresAt: number): Promise<boolean>;
    /**
     * Ends a session and, in the same step, adds it to the revoked-sessions feed (kept until
     * `until`: when its last access token expires), so every verifier refuses its access tokens.
     */
    revoke(id: string, at: number, until: number): Promise<void>;
    /**
     * Ends every open session of a realm, or of one of its users or clients, and in the same step
     * adds one entry covering them to the revoked-sessions feed (revocations.ts); returns how many.
     * A realm's or a user's end ends their browser sessions too.
     */
    revokeAll(of: { realmId: string; userId?: string; clientId?: string }, at: number, until: number): Promise<number>;
    /** Deletes sessions that expired before `before`; returns how many. */
    prune(before: number): Promise<number>;
  };
  browserSessions: {
    insert(session: BrowserSessionRecord): Promise<void>;
    get(id: string): Promise<BrowserSessionRecord | undefined>;
    byCookie(cookieHash: string): Promise<BrowserSessionRecord | undefined>;
    /** The open (not ended, not expired at `now`) browser sessions of a realm, or of one of its users; newest first. */
    listOpen(realmId: string, now: number, userId?: string): Promise<BrowserSessionRecord[]>;
    /**
     * Ends a browser session and every open token session started under it, adding their entries
     * to the revoked-sessions feed in the same step; the token sessions ended (0 when it was over).
     */
    end(id: string, at: number, until: number): Promise<number>;
    /** Deletes browser sessions that expired before `before`; returns how many. */
    prune(before: number): Promise<number>;
  };
  codes: {
    insert(code: AuthCodeRecord): Promise<void>;
    /**
     * One atomic step: marks the code used at `at` and answers it as it was before (`usedAt` null:
     * this is its first use), or undefined for an unknown code.
     */
    consume(codeHash: string, at: number): Promise<AuthCodeRecord | undefined>;
    /**
     * Records the session the code's first use started; false when the code was exchanged again
     * meanwhile (a `consume` after the first), so the caller ends that session at once.
     */
    started(codeHash: string, sessionId: string): Promise<boolean>;
    /** Deletes codes that expired before `before`; returns how many. */
    prune(before: number): Promise<number>;
  };
  keys: {
    active(realmId: string): Promise<KeyRecord | undefined>;
    /** The kid of the realm's newest key. */
    activeKid(realmId: string): Promise<string | undefined>;
    get(realmId: string, kid: string): Promise<KeyRecord | undefined>;
    /** Newest first. */
    list(realmId: string): Promise<KeyRecord[]>;
    insert(key: KeyRecord): Promise<void>;
  };
  failures: FailureCounter;
  /**
   * The revoked-sessions feed (entries numbered in commit order, under an id of the store's own):
   * read by every process that verifies access tokens, directly or through the public endpoint.
   */
  revocations: RevocationFeed & {
    /** Deletes entries kept until before `before`; returns how many. */
    prune(before: number): Promise<number>;
  };
  /**
   * The server-side key of the keyed hash of generated client secrets: made once per store (one
   * database shared by replicas makes it once, whoever asks first) and the same ever after.
   */
  secretHashKey(): Promise<Buffer>;
  /** Writes what is queued (group commits) and lets go of what the store opened itself. */
  close(): Promise<void>;
}

/**
 * Failed authentications per key (a caller's source, an account, an account from one source, a
 * realm) in fixed windows, shared by every process and replica (in the token store, or in Redis).
 * An attempt in flight holds a reserved place in the count, released if it succeeds.
 */
export interface FailureCounter {
  /** The failures and reservations counted for `key` in its current window (0 when it is over). */
  count(key: string, now: number): Promise<FailureWindow>;
  /** Counts one more for `key` (a new window when its last one is over); resolves with the count after it (0 when the store could not count it). */
  add(key: string, windowMs: number, now: number): Promise<number>;
  /** One atomic step: counts one more for `key` unless that reaches past `limit`; `reserved` says which. */
  reserve(key: string, limit: number, windowMs: number, now: number): Promise<FailureWindow & { reserved: boolean }>;
  /** Gives a reservation back, if its window (`resetAt`) is still the current one. */
  release(key: string, resetAt: number): Promise<void>;
  /** Forgets `key`'s window (a success that wipes its failures); reservations in flight give nothing back to a later one. */
  forget(key: string): Promise<void>;
  /** Forgets windows over at `now`; returns how many (0 where they expire by themselves). */
  prune(now: number): Promise<number>;
}

/**
 * The adapters of the token service's ports, one per port, as the composition root picked them
 * (services/token/stores.ts): `sqliteTokenStores` or `pgTokenStores`, with Redis's throttles or not.
 */
export interface TokenStores {
  /** Realms, clients, users, keys, sessions, lockouts and the revoked-sessions feed. */
  store: TokenStore;
  /** The per-source and per-realm failure counts (the throttles); lockouts are always counted in `store`. */
  throttles: FailureCounter;
}

export interface FailureWindow {
  count: number;
  resetAt: number;
}
