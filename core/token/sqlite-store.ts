import { groupCommit, openDatabase, statements, toJson, type Db } from '../shared/sqlite';
import type { SessionRecord, TokenStore } from './ports';
import * as row from './sqlite-rows';
import { tokenMigrations } from './sqlite-schema';

const bool = (b: boolean) => (b ? 1 : 0);

/** The embedded token store: one SQLite file (or `:memory:`), shared by worker processes in WAL mode. */
export function sqliteTokenStore(file: string, opts: { durable?: boolean } = {}): TokenStore & { db: Db; close(): void } {
  const db = openDatabase(file, tokenMigrations, opts);
  const { one, many, run } = statements(db);

  const getMeta = one('SELECT value FROM meta WHERE key = ?', (r) => r.value as string);
  const setMeta = run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const insertRealm = run('INSERT INTO realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
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
  const sessionRow = (s: SessionRecord) => insertSession(s.id, s.realmId, s.clientId, s.userId, s.scope, s.refreshJti, s.createdAt, s.expiresAt, s.revokedAt);
  const insertKey = run('INSERT INTO signing_keys (realm_id, kid, alg, private_pem, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  // One statement, so concurrent failures (other requests, other worker processes) all count.
  const loginFailure = run(
    `UPDATE users SET
       failed_logins = CASE WHEN failed_logins + 1 >= ? THEN 0 ELSE failed_logins + 1 END,
       locked_until = CASE WHEN failed_logins + 1 >= ? THEN ? ELSE NULL END
     WHERE id = ? AND (locked_until IS NULL OR locked_until <= ?)`,
  );
  const failureCount = one('SELECT count, reset_at FROM auth_failures WHERE key = ?', (r) => ({ count: r.count as number, resetAt: r.reset_at as number }));
  const addFailure = run(
    `INSERT INTO auth_failures (key, count, reset_at) VALUES (?, 1, ?)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN reset_at <= ? THEN 1 ELSE count + 1 END,
       reset_at = CASE WHEN reset_at <= ? THEN excluded.reset_at ELSE reset_at END`,
  );
  // Check and count in one statement, so parallel attempts (other worker processes too) never
  // reserve more places than the limit.
  const reserveFailure = one(
    `INSERT INTO auth_failures (key, count, reset_at) VALUES (@key, 1, @resetAt)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN reset_at <= @now THEN 1 ELSE count + 1 END,
       reset_at = CASE WHEN reset_at <= @now THEN excluded.reset_at ELSE reset_at END
     WHERE reset_at <= @now OR count < @limit
     RETURNING count, reset_at`,
    (r) => ({ count: r.count as number, resetAt: r.reset_at as number }),
  );
  const releaseFailure = run('UPDATE auth_failures SET count = count - 1 WHERE key = ? AND reset_at = ? AND count > 0');

  return {
    db,
    close: () => db.close(),
    secretHashKey: () => Buffer.from(getMeta('secret_hash_key')!, 'hex'),
    realms: {
      get: one('SELECT * FROM realms WHERE id = ?', row.realm),
      list: many('SELECT * FROM realms ORDER BY created_at, name', row.realm),
      insert: (r) => void insertRealm(r.id, r.name, bool(r.enabled), r.accessTokenLifespan, r.refreshTokenLifespan, r.refreshSecret, r.createdAt),
      setEnabled: (id, enabled) => run('UPDATE realms SET enabled = ? WHERE id = ?')(bool(enabled), id) > 0,
      getDefaultId: () => getMeta('default_realm'),
      setDefaultId: (id) => void setMeta('default_realm', id),
    },
    clients: {
      get: one('SELECT * FROM clients WHERE realm_id = ? AND client_id = ?', row.client),
      list: many('SELECT * FROM clients WHERE realm_id = ? ORDER BY created_at, client_id', row.client),
      insert: (c) =>
        void insertClient(c.id, c.realmId, c.clientId, c.secretHash, bool(c.enabled), toJson(c.roles), toJson(c.scopes), c.tenantId, c.createdAt),
      setEnabled: (realmId, clientId, enabled) => run('UPDATE clients SET enabled = ? WHERE realm_id = ? AND client_id = ?')(bool(enabled), realmId, clientId) > 0,
      setSecretHash: (realmId, clientId, hash) =>
        run('UPDATE clients SET secret_hash = ? WHERE realm_id = ? AND client_id = ? AND secret_hash IS NOT NULL')(hash, realmId, clientId) > 0,
      replaceSecretHash: (id, expected, next) => run('UPDATE clients SET secret_hash = ? WHERE id = ? AND secret_hash = ?')(next, id, expected) > 0,
    },
    users: {
      get: one('SELECT * FROM users WHERE realm_id = ? AND username = ?', row.user),
      getById: one('SELECT * FROM users WHERE id = ?', row.user),
      list: many('SELECT * FROM users WHERE realm_id = ? ORDER BY created_at, username', row.user),
      insert: (u) =>
        void insertUser(u.id, u.realmId, u.username, u.passwordHash, bool(u.enabled), toJson(u.roles), u.tenantId, u.email,
          bool(u.emailVerified), u.failedLogins, u.lockedUntil, u.createdAt),
      setEnabled: (realmId, username, enabled) => run('UPDATE users SET enabled = ? WHERE realm_id = ? AND username = ?')(bool(enabled), realmId, username) > 0,
      setPasswordHash: (realmId, username, hash) =>
        run('UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL WHERE realm_id = ? AND username = ?')(hash, realmId, username) > 0,
      replacePasswordHash: (id, expected, next) => run('UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?')(next, id, expected) > 0,
      recordLoginFailure: (id, p) => void loginFailure(p.threshold, p.threshold, p.lockedUntil, id, p.now),
      recordLoginSuccess: (id) =>
        void run('UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = ? AND (failed_logins != 0 OR locked_until IS NOT NULL)')(id),
    },
    sessions: {
      get: one('SELECT * FROM sessions WHERE id = ?', row.session),
      write: groupCommit(db, sessionRow),
      rotate: (id, expected, next, expiresAt) =>
        run('UPDATE sessions SET refresh_jti = ?, expires_at = ? WHERE id = ? AND refresh_jti = ? AND revoked_at IS NULL')(next, expiresAt, id, expected) === 1,
      revoke: (id, at) => void run('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')(at, id),
      revokeAll: (of, at) => {
        if (of.userId) return run('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND realm_id = ? AND revoked_at IS NULL')(at, of.userId, of.realmId);
        if (of.clientId) return run('UPDATE sessions SET revoked_at = ? WHERE realm_id = ? AND client_id = ? AND revoked_at IS NULL')(at, of.realmId, of.clientId);
        return run('UPDATE sessions SET revoked_at = ? WHERE realm_id = ? AND revoked_at IS NULL')(at, of.realmId);
      },
      prune: (before) => run('DELETE FROM sessions WHERE expires_at < ?')(before),
    },
    keys: {
      active: one('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC LIMIT 1', row.key),
      activeKid: one('SELECT kid FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC LIMIT 1', (r) => r.kid as string),
      get: one('SELECT * FROM signing_keys WHERE realm_id = ? AND kid = ?', row.key),
      list: many('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC', row.key),
      insert: (k) => void insertKey(k.realmId, k.kid, k.alg, k.privateKeyPem, toJson(k.publicJwk), k.createdAt),
    },
    failures: {
      count: (key, now) => {
        const w = failureCount(key);
        return w && w.resetAt > now ? w : { count: 0, resetAt: now };
      },
      add: (key, windowMs, now) => void addFailure(key, now + windowMs, now, now),
      reserve(key, limit, windowMs, now) {
        const taken = reserveFailure({ key, resetAt: now + windowMs, now, limit });
        if (taken) return { ...taken, reserved: true };
        return { ...(failureCount(key) ?? { count: limit, resetAt: now + windowMs }), reserved: false };
      },
      release: (key, resetAt) => void releaseFailure(key, resetAt),
      prune: (now) => run('DELETE FROM auth_failures WHERE reset_at <= ?')(now),
    },
  };
}
