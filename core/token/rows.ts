import type {
  AuthCodeRecord,
  BrowserSessionRecord,
  ClientPatch,
  ClientRecord,
  KeyRecord,
  RealmPatch,
  RealmRecord,
  SessionRecord,
  UserPatch,
  UserRecord,
} from './ports';

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
      version: r.version as number,
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
      version: r.version as number,
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
      version: r.version as number,
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

/** How a patched field is written: as it is, a boolean, or a JSON list. */
type Written = 'as-is' | 'bool' | 'json';
type PatchColumns<P> = { readonly [F in keyof Required<P>]: readonly [column: string, written: Written] };

/**
 * The columns an admin update may set, per record field, in every adapter. `Required<>` makes a
 * field added to a patch type a compile error here until it has its column. Column names are
 * only ever taken from here, never from a caller.
 */
export const PATCH_COLUMNS: {
  realm: PatchColumns<RealmPatch>;
  client: PatchColumns<ClientPatch>;
  user: PatchColumns<UserPatch>;
} = {
  realm: {
    name: ['name', 'as-is'],
    enabled: ['enabled', 'bool'],
    accessTokenLifespan: ['access_ttl', 'as-is'],
    refreshTokenLifespan: ['refresh_ttl', 'as-is'],
  },
  client: {
    enabled: ['enabled', 'bool'],
    roles: ['roles', 'json'],
    scopes: ['scopes', 'json'],
    tenantId: ['tenant_id', 'as-is'],
    redirectUris: ['redirect_uris', 'json'],
    postLogoutRedirectUris: ['post_logout_redirect_uris', 'json'],
    webOrigins: ['web_origins', 'json'],
    secretHash: ['secret_hash', 'as-is'],
  },
  user: {
    enabled: ['enabled', 'bool'],
    roles: ['roles', 'json'],
    email: ['email', 'as-is'],
    emailVerified: ['email_verified', 'bool'],
    tenantId: ['tenant_id', 'as-is'],
    passwordHash: ['password_hash', 'as-is'],
  },
};

/**
 * Whether a row may be at `version` (a 32-bit INTEGER from 1): any other one a caller sends
 * (If-Match) can only be stale, and is answered so without asking PostgreSQL, which would refuse
 * it as a parameter.
 */
export const possibleVersion = (version: number) => Number.isInteger(version) && version >= 1 && version <= 0x7fffffff;

/**
 * A patch as `[column, value]` pairs in a fixed order (the fields given, skipping undefined ones;
 * `null` is a value), each value as the engine writes it (`bool`: SQLite 0/1, PostgreSQL a boolean).
 */
export function patchSets<P extends object>(
  columns: PatchColumns<P>,
  patch: P,
  bool: (b: boolean) => unknown,
): [column: string, value: unknown][] {
  const sets: [string, unknown][] = [];
  for (const field of Object.keys(columns) as (keyof P)[]) {
    const value = patch[field];
    if (value === undefined) continue;
    const [column, written] = columns[field];
    sets.push([column, written === 'bool' ? bool(value as boolean) : written === 'json' ? JSON.stringify(value) : value]);
  }
  return sets;
}
