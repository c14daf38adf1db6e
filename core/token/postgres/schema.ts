/**
 * The token service's tables in a shared PostgreSQL database (`token_` before each name; the scope
 * `token` in platform_migrations): what token.db holds, for every replica at once. Instants are
 * TIMESTAMPTZ (the stores are given epoch milliseconds and answer them), lists JSONB. Realm names
 * and usernames are unique in any case, as token.db's NOCASE columns are.
 */
export const TOKEN_PG_MIGRATIONS = [
  `
  CREATE TABLE token_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE token_realms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    access_ttl INTEGER NOT NULL,
    refresh_ttl INTEGER NOT NULL,
    refresh_secret TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE UNIQUE INDEX token_realms_name ON token_realms (lower(name));
  CREATE TABLE token_clients (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL REFERENCES token_realms (id),
    client_id TEXT NOT NULL,
    secret_hash TEXT,
    enabled BOOLEAN NOT NULL,
    roles JSONB NOT NULL,
    scopes JSONB NOT NULL,
    tenant_id TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (realm_id, client_id)
  );
  CREATE TABLE token_users (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL REFERENCES token_realms (id),
    username TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    roles JSONB NOT NULL,
    tenant_id TEXT NOT NULL,
    email TEXT,
    email_verified BOOLEAN NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE UNIQUE INDEX token_users_name ON token_users (realm_id, lower(username));
  CREATE TABLE token_keys (
    realm_id TEXT NOT NULL REFERENCES token_realms (id),
    kid TEXT NOT NULL,
    alg TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    public_jwk JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (realm_id, kid)
  );
  CREATE INDEX token_keys_newest ON token_keys (realm_id, created_at DESC);
  -- Every token writes a session: one index besides the key (a user's sessions, to end them);
  -- pruning every ten minutes may scan.
  CREATE TABLE token_sessions (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    user_id TEXT,
    scope TEXT NOT NULL,
    refresh_jti TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
  );
  CREATE INDEX token_sessions_user ON token_sessions (user_id) WHERE user_id IS NOT NULL;
  CREATE TABLE token_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, reset_at TIMESTAMPTZ NOT NULL);
  `,
  // 2: the revoked-sessions feed every replica follows (core/shared/auth/revocations.ts). Writers
  // take an advisory lock before their entry's id and hold it to their commit, so entries commit in
  // id order and a reader that has id N has every entry up to N. Instants in epoch milliseconds, as
  // the entries carry them.
  `
  CREATE TABLE token_revocations (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    realm_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    up_to BIGINT NOT NULL,
    until BIGINT NOT NULL
  );
  INSERT INTO token_settings (key, value) VALUES ('revocations_feed', md5(random()::text || clock_timestamp()::text)) ON CONFLICT (key) DO NOTHING;
  `,
  // 3: sign-in for people (token.db's 6): clients' browser settings (redirect URIs, post-logout
  // URIs, web origins), browser (single sign-on) sessions found by the hash of their cookie, the
  // token sessions started under them, and authorization codes kept by their hash until used.
  // Every realm gets the public client of the platform's own pages (paths on PUBLIC_URL).
  `
  ALTER TABLE token_clients
    ADD COLUMN redirect_uris JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN post_logout_redirect_uris JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN web_origins JSONB NOT NULL DEFAULT '[]';
  ALTER TABLE token_sessions ADD COLUMN browser_session_id TEXT;
  CREATE INDEX token_sessions_browser_session ON token_sessions (browser_session_id) WHERE browser_session_id IS NOT NULL;
  CREATE TABLE token_browser_sessions (
    id TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    cookie_hash TEXT NOT NULL UNIQUE,
    auth_time TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
  );
  CREATE INDEX token_browser_sessions_user ON token_browser_sessions (realm_id, user_id);
  CREATE TABLE token_auth_codes (
    code_hash TEXT PRIMARY KEY,
    realm_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    browser_session_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    scope TEXT NOT NULL,
    nonce TEXT,
    code_challenge TEXT,
    auth_time TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ,
    reused BOOLEAN NOT NULL DEFAULT false,
    session_id TEXT
  );
  INSERT INTO token_clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at,
                             redirect_uris, post_logout_redirect_uris, web_origins)
    SELECT gen_random_uuid()::text, id, 'platform-console', NULL, true, '[]', '["openid","profile","email"]', id, created_at,
           '["/graphiql","/console/"]', '["/graphiql","/console/"]', '[]'
    FROM token_realms ON CONFLICT DO NOTHING;
  `,
  // 4: the admin API's optimistic concurrency (token.db's 7): realms, clients and users carry a
  // version (1 when made, +1 on every change), compared and set in the UPDATE itself (ETag / If-Match).
  `
  ALTER TABLE token_realms ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE token_clients ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE token_users ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  `,
  // 5: the admin lists page in SQL (core/token/postgres/pages.ts), comparing text in COLLATE "C"
  // (byte order, as the lists always sorted): within a realm, by username in any case, by client
  // id, or by creation; then by the key.
  `
  CREATE INDEX token_users_page_name ON token_users (realm_id, (lower(username)) COLLATE "C", id COLLATE "C");
  CREATE INDEX token_users_page_created ON token_users (realm_id, created_at, id COLLATE "C");
  CREATE INDEX token_clients_page_id ON token_clients (realm_id, client_id COLLATE "C");
  CREATE INDEX token_clients_page_created ON token_clients (realm_id, created_at, client_id COLLATE "C");
  `,
];
