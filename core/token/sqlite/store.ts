import { fromJson, groupCommit, openDatabase, statements, toJson, type Db } from '../../shared/sqlite';
import type { ClientRecord, FailureCounter, KeyRecord, SessionRecord, TokenStore } from '../ports';
import { sessionEntry, sessionsEntry } from '../revocations';
import { sqlitePages } from './pages';
import { sqliteRevocations } from './revocations';
import * as row from './rows';
import { tokenMigrations } from './schema';
import { sqliteUpdates } from './updates';

const bool = (b: boolean) => (b ? 1 : 0);
/** Browser settings that set something: a new version (none given changes nothing). */
const changesSome = (b: Partial<Pick<ClientRecord, 'redirectUris' | 'postLogoutRedirectUris' | 'webOrigins'>>) =>
  Boolean(b.redirectUris || b.postLogoutRedirectUris || b.webOrigins);

/** A synchronous function as the port's asynchronous one (SQLite answers at once; errors become rejections). */
const later =
  <A extends unknown[], R>(f: (...args: A) => R) =>
  async (...args: A): Promise<R> =>
    f(...args);

/**
 * The embedded token store: one SQLite file (or `:memory:`), shared by worker processes in WAL mode.
 * Each step is one statement or one transaction, which SQLite runs one writer at a time across the
 * processes sharing the file.
 */
export function sqliteTokenStore(file: string, opts: { durable?: boolean } = {}): TokenStore & { db: Db } {
  const db = openDatabase(file, tokenMigrations, opts);
  const { one, many, run } = statements(db);

  const getMeta = one('SELECT value FROM meta WHERE key = ?', (r) => r.value as string);
  const setMeta = run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const insertClient = run(
    `INSERT INTO clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at,
                          redirect_uris, post_logout_redirect_uris, web_origins)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const clientRow = (c: ClientRecord) =>
    insertClient(
      c.id,
      c.realmId,
      c.clientId,
      c.secretHash,
      bool(c.enabled),
      toJson(c.roles),
      toJson(c.scopes),
      c.tenantId,
      c.createdAt,
      toJson(c.redirectUris),
      toJson(c.postLogoutRedirectUris),
      toJson(c.webOrigins),
    ) === 1;
  const insertUser = run(
    `INSERT INTO users (id, realm_id, username, password_hash, enabled, roles, tenant_id, email, email_verified, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const insertSession = run(
    `INSERT INTO sessions (id, realm_id, client_id, user_id, scope, refresh_jti, browser_session_id, created_at, expires_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const sessionRow = (s: SessionRecord) =>
    insertSession(s.id, s.realmId, s.clientId, s.userId, s.scope, s.refreshJti, s.browserSessionId, s.createdAt, s.expiresAt, s.revokedAt);
  const insertKey = run('INSERT INTO signing_keys (realm_id, kid, alg, private_pem, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const keyRow = (k: KeyRecord) => void insertKey(k.realmId, k.kid, k.alg, k.privateKeyPem, toJson(k.publicJwk), k.createdAt);
  const insertRealm = run(
    'INSERT INTO realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const firstDefault = run("INSERT INTO meta (key, value) VALUES ('default_realm', ?) ON CONFLICT (key) DO NOTHING");
  const createRealm = db.transaction(
    (r: Parameters<TokenStore['realms']['create']>[0], first: Parameters<TokenStore['realms']['create']>[1]) => {
      if (insertRealm(r.id, r.name, bool(r.enabled), r.accessTokenLifespan, r.refreshTokenLifespan, r.refreshSecret, r.createdAt) !== 1)
        return false;
      keyRow(first.key);
      for (const c of first.clients) if (!clientRow(c)) throw new Error(`client ${c.clientId} given twice for realm ${r.id}`);
      firstDefault(r.id);
      return true;
    },
  );
  const writeSession = groupCommit(db, sessionRow);
  const updates = sqliteUpdates(db);
  const pages = sqlitePages(db);
  const revocations = sqliteRevocations(db);
  // Each ends sessions and adds the entry that ends their access tokens everywhere, in one transaction.
  const revokeOne = db.transaction((id: string, at: number, until: number) => {
    const realmId = one(
      'UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING realm_id',
      (r) => r.realm_id as string,
    )(at, id);
    if (realmId) revocations.record(sessionEntry(realmId, id, until));
  });
  const revokeAll = db.transaction((of: Parameters<TokenStore['sessions']['revokeAll']>[0], at: number, until: number) => {
    const ended = of.userId
      ? many(
          'UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND realm_id = ? AND revoked_at IS NULL RETURNING id',
          (r) => r.id as string,
        )(at, of.userId, of.realmId)
      : of.clientId
        ? many(
            'UPDATE sessions SET revoked_at = ? WHERE realm_id = ? AND client_id = ? AND revoked_at IS NULL RETURNING id',
            (r) => r.id as string,
          )(at, of.realmId, of.clientId)
        : many('UPDATE sessions SET revoked_at = ? WHERE realm_id = ? AND revoked_at IS NULL RETURNING id', (r) => r.id as string)(
            at,
            of.realmId,
          );
    if (of.userId)
      run('UPDATE browser_sessions SET revoked_at = ? WHERE realm_id = ? AND user_id = ? AND revoked_at IS NULL')(
        at,
        of.realmId,
        of.userId,
      );
    else if (!of.clientId) run('UPDATE browser_sessions SET revoked_at = ? WHERE realm_id = ? AND revoked_at IS NULL')(at, of.realmId);
    const entry = sessionsEntry(of, at, until, ended);
    if (entry) revocations.record(entry);
    return ended.length;
  });
  const endBrowserSession = db.transaction((id: string, at: number, until: number) => {
    const open = run('UPDATE browser_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')(at, id);
    const ended = many(
      'UPDATE sessions SET revoked_at = ? WHERE browser_session_id = ? AND revoked_at IS NULL RETURNING id, realm_id',
      (r) => ({ id: r.id as string, realmId: r.realm_id as string }),
    )(at, id);
    for (const e of ended) revocations.record(sessionEntry(e.realmId, e.id, until));
    return open + ended.length > 0 ? ended.length : 0;
  });
  const consumeCode = db.transaction((hash: string, at: number) => {
    const found = one('SELECT * FROM auth_codes WHERE code_hash = ?', row.code)(hash);
    if (!found) return undefined;
    if (found.usedAt === null) run('UPDATE auth_codes SET used_at = ? WHERE code_hash = ?')(at, hash);
    else run('UPDATE auth_codes SET reused = 1 WHERE code_hash = ?')(hash);
    return found;
  });
  const insertCode = run(
    `INSERT INTO auth_codes (code_hash, realm_id, client_id, user_id, browser_session_id, redirect_uri, scope, nonce, code_challenge,
                             auth_time, created_at, expires_at, used_at, session_id)
     VALUES (@codeHash, @realmId, @clientId, @userId, @browserSessionId, @redirectUri, @scope, @nonce, @codeChallenge,
             @authTime, @createdAt, @expiresAt, @usedAt, @sessionId)`,
  );
  const insertBrowserSession = run(
    `INSERT INTO browser_sessions (id, realm_id, user_id, cookie_hash, auth_time, created_at, expires_at, revoked_at)
     VALUES (@id, @realmId, @userId, @cookieHash, @authTime, @createdAt, @expiresAt, @revokedAt)`,
  );

  return {
    db,
    close: async () => {
      writeSession.flush();
      db.close();
    },
    secretHashKey: later(() => Buffer.from(getMeta('secret_hash_key')!, 'hex')),
    realms: {
      get: later(one('SELECT * FROM realms WHERE id = ?', row.realm)),
      // The name column is NOCASE: its unique index answers in any case.
      getByName: later(one('SELECT * FROM realms WHERE name = ?', row.realm)),
      list: later(many('SELECT * FROM realms ORDER BY created_at, name', row.realm)),
      create: later(createRealm),
      setEnabled: later((id, enabled) => run('UPDATE realms SET enabled = ?, version = version + 1 WHERE id = ?')(bool(enabled), id) > 0),
      getDefaultId: later(() => getMeta('default_realm')),
      update: later(updates.realm),
      setDefaultId: later((id) => void setMeta('default_realm', id)),
    },
    clients: {
      get: later(one('SELECT * FROM clients WHERE realm_id = ? AND client_id = ?', row.client)),
      list: later(many('SELECT * FROM clients WHERE realm_id = ? ORDER BY created_at, client_id', row.client)),
      page: later(pages.clients),
      insert: later(clientRow),
      setEnabled: later(
        (realmId, clientId, enabled) =>
          run('UPDATE clients SET enabled = ?, version = version + 1 WHERE realm_id = ? AND client_id = ?')(
            bool(enabled),
            realmId,
            clientId,
          ) > 0,
      ),
      setSecretHash: later(
        (realmId, clientId, hash) =>
          run('UPDATE clients SET secret_hash = ?, version = version + 1 WHERE realm_id = ? AND client_id = ? AND secret_hash IS NOT NULL')(
            hash,
            realmId,
            clientId,
          ) > 0,
      ),
      replaceSecretHash: later(
        (id, expected, next) =>
          run('UPDATE clients SET secret_hash = ?, version = version + 1 WHERE id = ? AND secret_hash = ?')(next, id, expected) > 0,
      ),
      setBrowserSettings: later(
        (realmId, clientId, b) =>
          run(
            `UPDATE clients SET redirect_uris = coalesce(?, redirect_uris), post_logout_redirect_uris = coalesce(?, post_logout_redirect_uris),
                    web_origins = coalesce(?, web_origins), version = version + ? WHERE realm_id = ? AND client_id = ?`,
          )(
            b.redirectUris ? toJson(b.redirectUris) : null,
            b.postLogoutRedirectUris ? toJson(b.postLogoutRedirectUris) : null,
            b.webOrigins ? toJson(b.webOrigins) : null,
            changesSome(b) ? 1 : 0,
            realmId,
            clientId,
          ) > 0,
      ),
      update: later(updates.client),
      webOrigins: later(() => [
        ...new Set(
          many(
            `SELECT c.web_origins FROM clients c JOIN realms r ON r.id = c.realm_id
             WHERE c.enabled = 1 AND r.enabled = 1 AND c.web_origins <> '[]'`,
            (r) => fromJson<string[]>(r.web_origins as string),
          )().flat(),
        ),
      ]),
    },
    users: {
      get: later(one('SELECT * FROM users WHERE realm_id = ? AND username = ?', row.user)),
      getById: later(one('SELECT * FROM users WHERE id = ?', row.user)),
      list: later(many('SELECT * FROM users WHERE realm_id = ? ORDER BY created_at, username', row.user)),
      page: later(pages.users),
      insert: later(
        (u) =>
          insertUser(
            u.id,
            u.realmId,
            u.username,
            u.passwordHash,
            bool(u.enabled),
            toJson(u.roles),
            u.tenantId,
            u.email,
            bool(u.emailVerified),
            u.createdAt,
          ) === 1,
      ),
      setEnabled: later(
        (realmId, username, enabled) =>
          run('UPDATE users SET enabled = ?, version = version + 1 WHERE realm_id = ? AND username = ?')(bool(enabled), realmId, username) >
          0,
      ),
      setPasswordHash: later(
        (realmId, username, hash) =>
          run('UPDATE users SET password_hash = ?, version = version + 1 WHERE realm_id = ? AND username = ?')(hash, realmId, username) > 0,
      ),
      replacePasswordHash: later(
        (id, expected, next) =>
          run('UPDATE users SET password_hash = ?, version = version + 1 WHERE id = ? AND password_hash = ?')(next, id, expected) > 0,
      ),
      update: later(updates.user),
    },
    sessions: {
      get: later(one('SELECT * FROM sessions WHERE id = ?', row.session)),
      write: writeSession,
      rotate: later(
        (id, expected, next, expiresAt) =>
          run('UPDATE sessions SET refresh_jti = ?, expires_at = ? WHERE id = ? AND refresh_jti = ? AND revoked_at IS NULL')(
            next,
            expiresAt,
            id,
            expected,
          ) === 1,
      ),
      revoke: later((id, at, until) => void revokeOne(id, at, until)),
      revokeAll: later((of, at, until) => revokeAll(of, at, until)),
      prune: later((before) => run('DELETE FROM sessions WHERE expires_at < ?')(before)),
    },
    browserSessions: {
      insert: later((b) => void insertBrowserSession({ ...b })),
      get: later(one('SELECT * FROM browser_sessions WHERE id = ?', row.browserSession)),
      byCookie: later(one('SELECT * FROM browser_sessions WHERE cookie_hash = ?', row.browserSession)),
      listOpen: later((realmId, now, userId) =>
        userId
          ? many(
              'SELECT * FROM browser_sessions WHERE realm_id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC',
              row.browserSession,
            )(realmId, userId, now)
          : many(
              'SELECT * FROM browser_sessions WHERE realm_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC',
              row.browserSession,
            )(realmId, now),
      ),
      end: later((id, at, until) => endBrowserSession(id, at, until)),
      prune: later((before) => run('DELETE FROM browser_sessions WHERE expires_at < ?')(before)),
    },
    codes: {
      insert: later((c) => void insertCode({ ...c })),
      consume: later((hash, at) => consumeCode(hash, at)),
      started: later(
        (hash, sessionId) =>
          one('UPDATE auth_codes SET session_id = ? WHERE code_hash = ? RETURNING reused', (r) => r.reused as number)(sessionId, hash) ===
          0,
      ),
      prune: later((before) => run('DELETE FROM auth_codes WHERE expires_at < ?')(before)),
    },
    keys: {
      active: later(one('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC LIMIT 1', row.key)),
      activeKid: later(one('SELECT kid FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC LIMIT 1', (r) => r.kid as string)),
      get: later(one('SELECT * FROM signing_keys WHERE realm_id = ? AND kid = ?', row.key)),
      list: later(many('SELECT * FROM signing_keys WHERE realm_id = ? ORDER BY created_at DESC', row.key)),
      insert: later(keyRow),
    },
    failures: sqliteFailureCounter(db),
    revocations: revocations.feed,
  };
}

/** The failed-authentication windows in the token file's `auth_failures`, shared by its worker processes. */
function sqliteFailureCounter(db: Db): FailureCounter {
  const { one, run } = statements(db);
  const failureCount = one('SELECT count, reset_at FROM auth_failures WHERE key = ?', (r) => ({
    count: r.count as number,
    resetAt: r.reset_at as number,
  }));
  const addFailure = one(
    `INSERT INTO auth_failures (key, count, reset_at) VALUES (@key, 1, @resetAt)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN reset_at <= @now THEN 1 ELSE count + 1 END,
       reset_at = CASE WHEN reset_at <= @now THEN excluded.reset_at ELSE reset_at END
     RETURNING count`,
    (r) => r.count as number,
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
    count: later((key, now) => {
      const w = failureCount(key);
      return w && w.resetAt > now ? w : { count: 0, resetAt: now };
    }),
    add: later((key, windowMs, now) => addFailure({ key, resetAt: now + windowMs, now }) ?? 0),
    reserve: later((key, limit, windowMs, now) => {
      const taken = reserveFailure({ key, resetAt: now + windowMs, now, limit });
      if (taken) return { ...taken, reserved: true };
      return { ...(failureCount(key) ?? { count: limit, resetAt: now + windowMs }), reserved: false };
    }),
    release: later((key, resetAt) => void releaseFailure(key, resetAt)),
    forget: later((key) => void run('DELETE FROM auth_failures WHERE key = ?')(key)),
    prune: later((now) => run('DELETE FROM auth_failures WHERE reset_at <= ?')(now)),
  };
}
