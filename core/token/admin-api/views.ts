import type { ClientView as AdminClient, RealmView as AdminRealm, UserView as AdminUser, BrowserSessionView } from '../admin';

/**
 * The admin API's views (docs/admin.md): snake_case, the same in a REST body, in GraphQL (in
 * camelCase there) and in the CLI's output. Never a secret: a client's secret appears only in the
 * answer that made it (`client_secret`), a password never.
 */
export interface RealmView {
  realm: string;
  name: string;
  enabled: boolean;
  access_token_lifespan: number;
  refresh_token_lifespan: number;
  created_at: string;
  default: boolean;
  version: number;
}

export interface ClientView {
  client_id: string;
  realm: string;
  tenant_id: string;
  enabled: boolean;
  public: boolean;
  roles: string[];
  scopes: string[];
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  web_origins: string[];
  created_at: string;
  version: number;
}

export interface UserView {
  id: string;
  username: string;
  realm: string;
  tenant_id: string;
  email: string | null;
  email_verified: boolean;
  enabled: boolean;
  locked: boolean;
  roles: string[];
  created_at: string;
  version: number;
}

export interface SessionView {
  id: string;
  realm: string;
  username: string;
  auth_time: string;
  created_at: string;
  expires_at: string;
}

/** A page of a list: `next_cursor` null on the last one, `total` over every page. */
export interface PageView<T> {
  items: T[];
  next_cursor: string | null;
  total: number;
}

export const realmView = (r: AdminRealm): RealmView => ({
  realm: r.id,
  name: r.name,
  enabled: r.enabled,
  access_token_lifespan: r.accessTokenLifespan,
  refresh_token_lifespan: r.refreshTokenLifespan,
  created_at: r.createdAt,
  default: r.default,
  version: r.version,
});

export const clientView = (c: AdminClient): ClientView => ({
  client_id: c.clientId,
  realm: c.realmId,
  tenant_id: c.tenantId,
  enabled: c.enabled,
  public: c.public,
  roles: c.roles,
  scopes: c.scopes,
  redirect_uris: c.redirectUris,
  post_logout_redirect_uris: c.postLogoutRedirectUris,
  web_origins: c.webOrigins,
  created_at: c.createdAt,
  version: c.version,
});

export const userView = (u: AdminUser): UserView => ({
  id: u.id,
  username: u.username,
  realm: u.realmId,
  tenant_id: u.tenantId,
  email: u.email,
  email_verified: u.emailVerified,
  enabled: u.enabled,
  locked: u.locked,
  roles: u.roles,
  created_at: u.createdAt,
  version: u.version,
});

export const sessionView = (s: BrowserSessionView): SessionView => ({
  id: s.id,
  realm: s.realm,
  username: s.username,
  auth_time: s.authTime,
  created_at: s.createdAt,
  expires_at: s.expiresAt,
});
