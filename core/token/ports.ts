import type { JWK } from 'jose';

export interface RealmRecord {
  id: string;
  name: string;
  enabled: boolean;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
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
  };
  users: {
    get(realmId: string, username: string): UserRecord | undefined;
    getById(id: string): UserRecord | undefined;
    list(realmId: string): UserRecord[];
    insert(user: UserRecord): void;
    setEnabled(realmId: string, username: string, enabled: boolean): boolean;
    recordLoginFailure(id: string, failedLogins: number, lockedUntil: number | null): void;
    recordLoginSuccess(id: string): void;
  };
  sessions: {
    get(id: string): SessionRecord | undefined;
    insert(session: SessionRecord): void;
    /** Compare-and-set of the current refresh token id; false when it was not `expectedJti`. */
    rotate(id: string, expectedJti: string, nextJti: string, expiresAt: number): boolean;
    revoke(id: string, at: number): void;
    /** Deletes sessions that expired before `before`; returns how many. */
    prune(before: number): number;
  };
  keys: {
    active(realmId: string): KeyRecord | undefined;
    get(realmId: string, kid: string): KeyRecord | undefined;
    list(realmId: string): KeyRecord[];
    insert(key: KeyRecord): void;
  };
}
