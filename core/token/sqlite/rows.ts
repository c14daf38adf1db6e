import { fromJson, type Row } from '../../shared/sqlite';
import type { ClientRecord, KeyRecord, RealmRecord, SessionRecord, UserRecord } from '../ports';

/** Rows of token.db as records (the store's column names are snake_case, records camelCase). */
export const realm = (r: Row): RealmRecord => ({
  id: r.id as string,
  name: r.name as string,
  enabled: r.enabled === 1,
  accessTokenLifespan: r.access_ttl as number,
  refreshTokenLifespan: r.refresh_ttl as number,
  refreshSecret: r.refresh_secret as string,
  createdAt: r.created_at as number,
});

export const client = (r: Row): ClientRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  clientId: r.client_id as string,
  secretHash: (r.secret_hash as string | null) ?? null,
  enabled: r.enabled === 1,
  roles: fromJson(r.roles as string),
  scopes: fromJson(r.scopes as string),
  tenantId: r.tenant_id as string,
  createdAt: r.created_at as number,
});

export const user = (r: Row): UserRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  username: r.username as string,
  passwordHash: r.password_hash as string,
  enabled: r.enabled === 1,
  roles: fromJson(r.roles as string),
  tenantId: r.tenant_id as string,
  email: (r.email as string | null) ?? null,
  emailVerified: r.email_verified === 1,
  failedLogins: r.failed_logins as number,
  lockedUntil: (r.locked_until as number | null) ?? null,
  createdAt: r.created_at as number,
});

export const session = (r: Row): SessionRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  clientId: r.client_id as string,
  userId: (r.user_id as string | null) ?? null,
  scope: r.scope as string,
  refreshJti: r.refresh_jti as string,
  createdAt: r.created_at as number,
  expiresAt: r.expires_at as number,
  revokedAt: (r.revoked_at as number | null) ?? null,
});

export const key = (r: Row): KeyRecord => ({
  kid: r.kid as string,
  realmId: r.realm_id as string,
  alg: r.alg as 'RS256',
  privateKeyPem: r.private_pem as string,
  publicJwk: fromJson(r.public_jwk as string),
  createdAt: r.created_at as number,
});
