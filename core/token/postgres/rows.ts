import type { ClientRecord, KeyRecord, RealmRecord, SessionRecord, UserRecord } from '../ports';

/** Rows of the token_ tables as records (TIMESTAMPTZ arrives as a Date, JSONB parsed, BOOLEAN as a boolean). */
export type Row = Record<string, unknown>;

const ms = (v: unknown) => (v as Date).getTime();
const msOrNull = (v: unknown) => (v === null ? null : ms(v));

export const realm = (r: Row): RealmRecord => ({
  id: r.id as string,
  name: r.name as string,
  enabled: r.enabled as boolean,
  accessTokenLifespan: r.access_ttl as number,
  refreshTokenLifespan: r.refresh_ttl as number,
  refreshSecret: r.refresh_secret as string,
  createdAt: ms(r.created_at),
});

export const client = (r: Row): ClientRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  clientId: r.client_id as string,
  secretHash: (r.secret_hash as string | null) ?? null,
  enabled: r.enabled as boolean,
  roles: r.roles as string[],
  scopes: r.scopes as string[],
  tenantId: r.tenant_id as string,
  createdAt: ms(r.created_at),
});

export const user = (r: Row): UserRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  username: r.username as string,
  passwordHash: r.password_hash as string,
  enabled: r.enabled as boolean,
  roles: r.roles as string[],
  tenantId: r.tenant_id as string,
  email: (r.email as string | null) ?? null,
  emailVerified: r.email_verified as boolean,
  failedLogins: r.failed_logins as number,
  lockedUntil: msOrNull(r.locked_until),
  createdAt: ms(r.created_at),
});

export const session = (r: Row): SessionRecord => ({
  id: r.id as string,
  realmId: r.realm_id as string,
  clientId: r.client_id as string,
  userId: (r.user_id as string | null) ?? null,
  scope: r.scope as string,
  refreshJti: r.refresh_jti as string,
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
  revokedAt: msOrNull(r.revoked_at),
});

export const key = (r: Row): KeyRecord => ({
  kid: r.kid as string,
  realmId: r.realm_id as string,
  alg: r.alg as 'RS256',
  privateKeyPem: r.private_pem as string,
  publicJwk: r.public_jwk as KeyRecord['publicJwk'],
  createdAt: ms(r.created_at),
});
