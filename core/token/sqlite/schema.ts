/** Token store migrations; append only, one entry per schema version. */
export const tokenMigrations: string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE realms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    enabled INTEGER NOT NULL,
    access_ttl INTEGER NOT NULL,
    refresh_ttl INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE clients (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL REFERENCES realms(id),
    client_id TEXT NOT NULL,
    secret_hash TEXT,
    enabled INTEGER NOT NULL,
    roles TEXT NOT NULL,
    scopes TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (realm_id, client_id)
  );
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL REFERENCES realms(id),
    username TEXT NOT NULL COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    roles TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    email TEXT,
    email_verified INTEGER NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (realm_id, username)
  );
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    user_id TEXT,
    scope TEXT NOT NULL,
    refresh_jti TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);
  CREATE TABLE signing_keys (
    realm_id TEXT NOT NULL REFERENCES realms(id),
    kid TEXT NOT NULL,
    alg TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (realm_id, kid)
  );
  `,
  // 2: per-realm HMAC secret for refresh tokens (HS512, as Keycloak signs them); the failed
  // authentication throttle, shared by every worker process; sessions of a user, to end them.
  `
  ALTER TABLE realms ADD COLUMN refresh_secret TEXT NOT NULL DEFAULT '';
  UPDATE realms SET refresh_secret = lower(hex(randomblob(64))) WHERE refresh_secret = '';
  CREATE TABLE auth_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, reset_at INTEGER NOT NULL);
  CREATE INDEX sessions_by_user ON sessions (user_id) WHERE user_id IS NOT NULL;
  `,
  // 3: every token writes a session, so a session is one B-tree write: the table is keyed by its
  // id (WITHOUT ROWID) and has no expiry index (pruning every ten minutes may scan).
  `
  CREATE TABLE sessions_v3 (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    user_id TEXT,
    scope TEXT NOT NULL,
    refresh_jti TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
  ) WITHOUT ROWID;
  INSERT INTO sessions_v3 SELECT id, realm_id, client_id, user_id, scope, refresh_jti, created_at, expires_at, revoked_at FROM sessions;
  DROP TABLE sessions;
  ALTER TABLE sessions_v3 RENAME TO sessions;
  CREATE INDEX sessions_by_user ON sessions (user_id) WHERE user_id IS NOT NULL;
  `,
  // 4: the server-side key of the keyed hash (HMAC-SHA-256) of generated client secrets; kept
  // with the hashes, so a backup of token.db restores working secrets.
  `
  INSERT INTO meta (key, value) VALUES ('secret_hash_key', lower(hex(randomblob(32)))) ON CONFLICT (key) DO NOTHING;
  `,
  // 5: the revoked-sessions feed every worker follows (core/shared/auth/revocations.ts): entries in
  // commit order (AUTOINCREMENT never reuses an id), and the feed's own id, so a reader holding a
  // cursor of another store, or one past its last entry (a restored backup), reads it all again.
  `
  CREATE TABLE revocations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    up_to INTEGER NOT NULL,
    until INTEGER NOT NULL
  );
  INSERT INTO meta (key, value) VALUES ('revocations_feed', lower(hex(randomblob(16)))) ON CONFLICT (key) DO NOTHING;
  `,
  // 6: sign-in for people: clients' browser settings (redirect URIs, post-logout URIs, web
  // origins), browser (single sign-on) sessions found by the hash of their cookie, the token
  // sessions started under them, and authorization codes kept by their hash until used. Every
  // realm gets the public client of the platform's own pages (paths on PUBLIC_URL).
  `
  ALTER TABLE clients ADD COLUMN redirect_uris TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE clients ADD COLUMN post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE clients ADD COLUMN web_origins TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE sessions ADD COLUMN browser_session_id TEXT;
  CREATE INDEX sessions_by_browser_session ON sessions (browser_session_id) WHERE browser_session_id IS NOT NULL;
  CREATE TABLE browser_sessions (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    cookie_hash TEXT NOT NULL UNIQUE,
    auth_time INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX browser_sessions_by_user ON browser_sessions (realm_id, user_id);
  CREATE TABLE auth_codes (
    code_hash TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    browser_session_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    scope TEXT NOT NULL,
    nonce TEXT,
    code_challenge TEXT,
    auth_time INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    reused INTEGER NOT NULL DEFAULT 0,
    session_id TEXT
  );
  INSERT INTO clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at,
                       redirect_uris, post_logout_redirect_uris, web_origins)
    SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-a'
             || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
           id, 'platform-console', NULL, 1, '[]', '["openid","profile","email"]', id, created_at,
           '["/graphiql","/console/"]', '["/graphiql","/console/"]', '[]'
    FROM realms WHERE true ON CONFLICT DO NOTHING;
  `,
  // 7: the admin API's optimistic concurrency: realms, clients and users carry a version (1 when
  // made, +1 on every change), compared and set in the UPDATE itself (ETag / If-Match).
  `
  ALTER TABLE realms ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE clients ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  `,
  // 8: the admin lists page in SQL (core/token/sqlite/pages.ts): by creation, then the key, within
  // a realm. By username and by client id the unique indexes (realm_id, username|client_id) serve.
  `
  CREATE INDEX users_by_creation ON users (realm_id, created_at, id);
  CREATE INDEX clients_by_creation ON clients (realm_id, created_at, client_id);
  `,
];
