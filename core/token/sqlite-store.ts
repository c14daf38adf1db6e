import { fromJson, openDatabase, toJson, type Db } from '../sqlite';
import type { ClientRecord, KeyRecord, RealmRecord, SessionRecord, TokenStore, UserRecord } from './ports';
import { tokenMigrations } from './sqlite-schema';

type Row = Record<string, unknown>;

const realm = (r: Row): RealmRecord => ({
  id: r.id as string,
  name: r.name as string,
  enabled: r.enabled === 1,
  accessTokenLifespan: r.access_ttl as number,
  refreshTokenLifespan: r.refresh_ttl as number,
  createdAt: r.created_at as number,
});

const client = (r: Row): ClientRecord => ({
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

const user = (r: Row): UserRecord => ({
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

const session = (r: Row): SessionRecord => ({
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

const key = (r: Row): KeyRecord => ({
  kid: r.kid as string,
  realmId: r.realm_id as string,
  alg: r.alg as 'RS256',
  privateKeyPem: r.private_pem as string,
  publicJwk: fromJson(r.public_jwk as string),
  createdAt: r.created_at as number,
});

const bool = (b: boolean) => (b ? 1 : 0);

/** The embedded token store: one SQLite file (or `:memory:`). */
export function sqliteTokenStore(file: string, opts: { durable?: boolean } = {}): TokenStore & { db: Db; close(): void } {
  const db = openDatabase(file, tokenMigrations, opts);
  const one = <T>(sql: string, map: (r: Row) => T) => {
    const st = db.prepare(sql);
    return (...args: unknown[]): T | undefined => {
      const r = st.get(...args) as Row | undefined;
      return r ? map(r) : undefined;
    };
  };
  const many = <T>(sql: string, map: (r: Row) => T) => {
    const st = db.prepare(sql);
    return (...args: unknown[]): T[] => (st.all(...args) as Row[]).map(map);
  };
  const run = (sql: string) => {
    const st = db.prepare(sql);
    return (...args: unknown[]) => st.run(...args).changes;
  };

  const getMeta = one('SELECT value FROM meta WHERE key = ?', (r) => r.value as string);
  const setMeta = run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const insertRealm = run('INSERT INTO realms (id, name, enabled, access_ttl, refresh_ttl, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const insertClient = run(
    'INSERT INTO clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertUser = run(
    `INSERT INTO users (id, realm_id, username, password_hash, enabled, roles, tenant_id, email, email_verified, failed_logins, locked_until, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertSession = run(
    'INSERT INTO sessions (id, realm_id, client_id, user_id, scope, refresh_jti, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertKey = run('INSERT INTO signing_keys (realm_id, kid, alg, private_pem, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)');

  const setRealmEnabled = run('UPDATE realms SET enabled = ? WHERE id = ?');
  const setClientEnabled = run('UPDATE clients SET enabled = ? WHERE realm_id = ? AND client_id = ?');
  const setClientSecret = run('UPDATE clients SET secret_hash = ? WHERE realm_id = ? AND client_id = ? AND secret_hash IS NOT NULL');
  const setUserEnabled = run('UPDATE users SET enabled = ?, failed_logins = 0, locked_until = NULL WHERE realm_id = ? AND username = ?');
  const setLoginFailures = run('UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?');
  const clearLoginFailures = run(
    'UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = ? AND (failed_logins != 0 OR locked_until IS NOT NULL)',
  );
  const rotateSession = run(
    'UPDATE sessions SET refresh_jti = ?, expires_at = ? WHERE id = ? AND refresh_jti = ? AND revoked_at IS NULL',
  );
  const revokeSession = run('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const pruneSessions = run('DELETE FROM sessions WHERE expires_at < ?');

  return {
    db,
    close: () => db.close(),
    realms: {
      get: one('SELECT * FROM realms WHERE id = ?', realm),
      list: many('SELECT * FROM realms ORDER BY created_at, name', realm),
      insert: (r) => void insertRealm(r.id, r.name, bool(r.enabled), r.accessTokenLifespan, r.refreshTokenLifespan, r.createdAt),
      setEnabled: (id, enabled) => setRealmEnabled(bool(enabled), id) > 0,
      getDefaultId: () => getMeta('default_realm'),
      setDefaultId: (id) => void setMeta('default_realm', id),
    },
    clients: {
      get: one('SELECT * FROM clients WHERE realm_id = ? AND client_id = ?', client),
      list: many('SELECT * FROM clients WHERE realm_id = ? ORDER BY created_at, client_id', client),
      insert: (c) =>
        void insertClient(c.id, c.realmId, c.clientId, c.secretHash, bool(c.enabled), toJson(c.roles), toJson(c.scopes), c.tenantId, c.createdAt),
      setEnabled: (realmId, clientId, enabled) => setClientEnabled(bool(enabled), realmId, clientId) > 0,
      setSecretHash: (realmId, clientId, hash) => setClientSecret(hash, realmId, clientId) > 0,
    },
    users: {
      get: one('SELECT * FROM users WHERE realm_id = ? AND username = ?', user),
      getById: one('SELECT * FROM users WHERE id = ?', user),
      list: many('SELECT * FROM users WHERE realm_id = ? ORDER BY created_at, username', user),
      insert: (u) =>
        void insertUser(u.id, u.realmId, u.username, u.passwordHash, bool(u.enabled), toJson(u.roles), u.tenantId, u.email,
          bool(u.emailVerified), u.failedLogins, u.lockedUntil, u.createdAt),
      setEnabled: (realmId, username, enabled) => setUserEnabled(bool(enabled), realmId, username) > 0,
      recordLoginFailure: (id, failed, lockedUntil) => void setLoginFailures(failed, lockedUntil, id),
      recordLoginSuccess: (id) => void clearLoginFailures(id),
    },
    sessions: {
      get: one('SELECT * FROM sessions WHERE id = ?', session),
      insert: (s) => void insertSession(s.id, s.realmId, s.clientId, s.userId, s.scope, s.refreshJti, s.createdAt, s.expiresAt, s.revokedAt),
      rotate: (id, expected, next, expiresAt) => rotateSession(next, expiresAt, id, expected) === 1,
      revoke: (id, at) => void revokeSession(at, id),
      prune: (before) => pruneSessions(before),
    },
    keys: {
      active: one('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC LIMIT 1', key),
      get: one('SELECT * FROM signing_keys WHERE realm_id = ? AND kid = ?', key),
      list: many('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC', key),
      insert: (k) => void insertKey(k.realmId, k.kid, k.alg, k.privateKeyPem, toJson(k.publicJwk), k.createdAt),
    },
  };
}
