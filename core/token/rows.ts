import type { AuthCodeRecord, BrowserSessionRecord, ClientRecord, KeyRecord, RealmRecord, SessionRecord, UserRecord } from './ports';

/** A stored row: snake_case columns as the driver hands them over. */
export type Row = Record<string, unknown>;

/** How one engine hands over what is not a plain string or number (SQLite: 0/1, epoch ms, JSON text; PostgreSQL: booleans, Dates, parsed JSON). */
export interface ColumnDecoding {
  bool(v: unknown): boolean;
  time(v: unknown): number;
  json<T>(v: unknown): T;
}

/** The token tables' rows as records, the same columns in every adapter. */
export function tokenRows(d: ColumnDecoding) {
  const timeOrNull = (v: unknown) => (v === null || v === undefined ? null : d.time(v));
  return {
    realm: (r: Row): RealmRecord => ({
      id: r.id as string,
      name: r.name as string,
      enabled: d.bool(r.enabled),
      accessTokenLifespan: r.access_ttl as number,
      refreshTokenLifespan: r.refresh_ttl as number,
      refreshSecret: r.refresh_secret as string,
      createdAt: d.time(r.created_at),
    }),
    client: (r: Row): ClientRecord => ({
      id: r.id as string,
      realmId: r.realm_id as string,
      clientId: r.client_id as string,
      secretHash: (r.secret_hash as string | null) ?? null,
      enabled: d.bool(r.enabled),
      roles: d.json(r.roles),
      scopes: d.json(r.scopes),
      tenantId: r.tenant_id as string,
      redirectUris: d.json(r.redirect_uris),
      postLogoutRedirectUris: d.json(r.post_logout_redirect_uris),
      webOrigins: d.json(r.web_origins),
      createdAt: d.time(r.created_at),
    }),
    user: (r: Row): UserRecord => ({
      id: r.id as string,
      realmId: r.realm_id as string,
      username: r.username as string,
      passwordHash: r.password_hash as string,
      enabled: d.bool(r.enabled),
      roles: d.json(r.roles),
      tenantId: r.tenant_id as string,
      email: (r.email as string | null) ?? null,
      emailVerified: d.bool(r.email_verified),
      createdAt: d.time(r.created_at),
    }),
    session: (r: Row): SessionRecord => ({
      id: r.id as string,
      realmId: r.realm_id as string,
      clientId: r.client_id as string,
      userId: (r.user_id as string | null) ?? null,
      scope: r.scope as string,
      refreshJti: r.refresh_jti as string,
      browserSessionId: (r.browser_session_id as string | null) ?? null,
      createdAt: d.time(r.created_at),
      expiresAt: d.time(r.expires_at),
      revokedAt: timeOrNull(r.revoked_at),
    }),
    browserSession: (r: Row): BrowserSessionRecord => ({
      id: r.id as string,
      realmId: r.realm_id as string,
      userId: r.user_id as string,
      cookieHash: r.cookie_hash as string,
      authTime: d.time(r.auth_time),
      createdAt: d.time(r.created_at),
      expiresAt: d.time(r.expires_at),
      revokedAt: timeOrNull(r.revoked_at),
    }),
    code: (r: Row): AuthCodeRecord => ({
      codeHash: r.code_hash as string,
      realmId: r.realm_id as string,
      clientId: r.client_id as string,
      userId: r.user_id as string,
      browserSessionId: r.browser_session_id as string,
      redirectUri: r.redirect_uri as string,
      scope: r.scope as string,
      nonce: (r.nonce as string | null) ?? null,
      codeChallenge: (r.code_challenge as string | null) ?? null,
      authTime: d.time(r.auth_time),
      createdAt: d.time(r.created_at),
      expiresAt: d.time(r.expires_at),
      usedAt: timeOrNull(r.used_at),
      sessionId: (r.session_id as string | null) ?? null,
    }),
    key: (r: Row): KeyRecord => ({
      kid: r.kid as string,
      realmId: r.realm_id as string,
      alg: r.alg as 'RS256',
      privateKeyPem: r.private_pem as string,
      publicJwk: d.json(r.public_jwk),
      createdAt: d.time(r.created_at),
    }),
  };
}
