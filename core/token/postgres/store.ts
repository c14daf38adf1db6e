import { randomBytes } from 'node:crypto';
import type { PgPool } from '../../shared/postgres';
import type { ClientRecord, KeyRecord, TokenStore } from '../ports';
import { pgBrowserSessions, pgCodes } from './browser';
import { pgFailureCounter } from './failures';
import { pgPages } from './pages';
import { queries, transaction } from './query';
import { pgRevocations } from './revocations';
import * as row from './rows';
import { pgSessions } from './sessions';
import { pgUpdates } from './updates';

type Q = ReturnType<typeof queries>;
const at = (ms: number | null) => (ms === null ? null : new Date(ms));
const json = (v: unknown) => JSON.stringify(v);

const insertClient = async (q: Q, c: ClientRecord) =>
  (await q.count(
    'clients.insert',
    `INSERT INTO token_clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at,
                               redirect_uris, post_logout_redirect_uris, web_origins)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
    [
      c.id,
      c.realmId,
      c.clientId,
      c.secretHash,
      c.enabled,
      json(c.roles),
      json(c.scopes),
      c.tenantId,
      at(c.createdAt),
      json(c.redirectUris),
      json(c.postLogoutRedirectUris),
      json(c.webOrigins),
    ],
  )) === 1;
const insertKey = (q: Q, k: KeyRecord) =>
  q.count(
    'keys.insert',
    'INSERT INTO token_keys (realm_id, kid, alg, private_pem, public_jwk, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [k.realmId, k.kid, k.alg, k.privateKeyPem, json(k.publicJwk), at(k.createdAt)],
  );
const setting = (q: Q, key: string) =>
  q.one('settings.get', 'SELECT value FROM token_settings WHERE key = $1', [key], (r) => r.value as string);

/**
 * The token store in PostgreSQL (`DATABASE_URL`), one database for every replica: the same port
 * and the same atomic steps as token.db (test/core/token/store-contracts.ts). `pool` belongs to the
 * caller; `close` writes the sessions still queued and ends the revocation feed's listener.
 */
export function pgTokenStore(pool: PgPool): TokenStore {
  const q = queries(pool);
  const sessions = pgSessions(pool);
  const revocations = pgRevocations(pool);
  const updates = pgUpdates(pool);
  const pages = pgPages(pool);
  let hashKey: Promise<Buffer> | undefined;

  return {
    close: async () => {
      await revocations.close();
      await sessions.flush();
    },
    /** Made by whichever replica asks first (INSERT … ON CONFLICT DO NOTHING), then read by all. */
    secretHashKey: () =>
      (hashKey ??= (async () => {
        await q.count('settings.init', 'INSERT INTO token_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
          'secret_hash_key',
          randomBytes(32).toString('hex'),
        ]);
        return Buffer.from((await setting(q, 'secret_hash_key'))!, 'hex');
      })().catch((err: unknown) => {
        hashKey = undefined;
        throw err;
      })),
    realms: {
      get: (id) => q.one('realms.get', 'SELECT * FROM token_realms WHERE id = $1', [id], row.realm),
      // lower(name) is the unique index's expression: one indexed read.
      getByName: (name) => q.one('realms.getByName', 'SELECT * FROM token_realms WHERE lower(name) = lower($1)', [name], row.realm),
      list: () => q.many('realms.list', 'SELECT * FROM token_realms ORDER BY created_at, lower(name) COLLATE "C"', [], row.realm),
      // One transaction: the realm, its key and clients, and the default when there is none. A
      // replica inserting the same id or name meanwhile makes this one wait for its commit, then find it taken.
      create: (r, first) =>
        transaction(pool, async (t) => {
          const inserted = await t.count(
            'realms.insert',
            `INSERT INTO token_realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
            [r.id, r.name, r.enabled, r.accessTokenLifespan, r.refreshTokenLifespan, r.refreshSecret, at(r.createdAt)],
          );
          if (inserted !== 1) return false;
          await insertKey(t, first.key);
          for (const c of first.clients)
            if (!(await insertClient(t, c))) throw new Error(`client ${c.clientId} given twice for realm ${r.id}`);
          await t.count(
            'settings.first-default',
            "INSERT INTO token_settings (key, value) VALUES ('default_realm', $1) ON CONFLICT (key) DO NOTHING",
            [r.id],
          );
          return true;
        }),
      setEnabled: async (id, enabled) =>
        (await q.count('realms.enable', 'UPDATE token_realms SET enabled = $2, version = version + 1 WHERE id = $1', [id, enabled])) > 0,
      update: updates.realm,
      getDefaultId: () => setting(q, 'default_realm'),
      setDefaultId: async (id) => {
        await q.count(
          'settings.default',
          `INSERT INTO token_settings (key, value) VALUES ('default_realm', $1)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [id],
        );
      },
    },
    clients: {
      get: (realmId, clientId) =>
        q.one('clients.get', 'SELECT * FROM token_clients WHERE realm_id = $1 AND client_id = $2', [realmId, clientId], row.client),
      list: (realmId) =>
        q.many(
          'clients.list',
          'SELECT * FROM token_clients WHERE realm_id = $1 ORDER BY created_at, client_id COLLATE "C"',
          [realmId],
          row.client,
        ),
      page: pages.clients,
      insert: (c) => insertClient(q, c),
      setEnabled: async (realmId, clientId, enabled) =>
        (await q.count(
          'clients.enable',
          'UPDATE token_clients SET enabled = $3, version = version + 1 WHERE realm_id = $1 AND client_id = $2',
          [realmId, clientId, enabled],
        )) > 0,
      setSecretHash: async (realmId, clientId, hash) =>
        (await q.count(
          'clients.secret',
          'UPDATE token_clients SET secret_hash = $3, version = version + 1 WHERE realm_id = $1 AND client_id = $2 AND secret_hash IS NOT NULL',
          [realmId, clientId, hash],
        )) > 0,
      replaceSecretHash: async (id, expected, next) =>
        (await q.count(
          'clients.rehash',
          'UPDATE token_clients SET secret_hash = $3, version = version + 1 WHERE id = $1 AND secret_hash = $2',
          [id, expected, next],
        )) > 0,
      setBrowserSettings: async (realmId, clientId, b) =>
        (await q.count(
          'clients.browser-settings',
          `UPDATE token_clients SET redirect_uris = coalesce($3::jsonb, redirect_uris),
             post_logout_redirect_uris = coalesce($4::jsonb, post_logout_redirect_uris), web_origins = coalesce($5::jsonb, web_origins),
             version = version + $6
           WHERE realm_id = $1 AND client_id = $2`,
          [
            realmId,
            clientId,
            b.redirectUris ? json(b.redirectUris) : null,
            b.postLogoutRedirectUris ? json(b.postLogoutRedirectUris) : null,
            b.webOrigins ? json(b.webOrigins) : null,
            // None given changes nothing: no new version.
            b.redirectUris || b.postLogoutRedirectUris || b.webOrigins ? 1 : 0,
          ],
        )) > 0,
      update: updates.client,
      webOrigins: () =>
        q.many(
          'clients.web-origins',
          `SELECT DISTINCT o.origin FROM token_clients c JOIN token_realms r ON r.id = c.realm_id,
             jsonb_array_elements_text(c.web_origins) AS o(origin)
           WHERE c.enabled AND r.enabled AND c.web_origins <> '[]'::jsonb ORDER BY o.origin`,
          [],
          (r) => r.origin as string,
        ),
    },
    users: {
      get: (realmId, username) =>
        q.one('users.get', 'SELECT * FROM token_users WHERE realm_id = $1 AND lower(username) = lower($2)', [realmId, username], row.user),
      getById: (id) => q.one('users.by-id', 'SELECT * FROM token_users WHERE id = $1', [id], row.user),
      list: (realmId) =>
        q.many(
          'users.list',
          'SELECT * FROM token_users WHERE realm_id = $1 ORDER BY created_at, lower(username) COLLATE "C"',
          [realmId],
          row.user,
        ),
      page: pages.users,
      insert: async (u) =>
        (await q.count(
          'users.insert',
          `INSERT INTO token_users (id, realm_id, username, password_hash, enabled, roles, tenant_id, email, email_verified, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
          [u.id, u.realmId, u.username, u.passwordHash, u.enabled, json(u.roles), u.tenantId, u.email, u.emailVerified, at(u.createdAt)],
        )) === 1,
      setEnabled: async (realmId, username, enabled) =>
        (await q.count(
          'users.enable',
          'UPDATE token_users SET enabled = $3, version = version + 1 WHERE realm_id = $1 AND lower(username) = lower($2)',
          [realmId, username, enabled],
        )) > 0,
      setPasswordHash: async (realmId, username, hash) =>
        (await q.count(
          'users.password',
          'UPDATE token_users SET password_hash = $3, version = version + 1 WHERE realm_id = $1 AND lower(username) = lower($2)',
          [realmId, username, hash],
        )) > 0,
      replacePasswordHash: async (id, expected, next) =>
        (await q.count(
          'users.rehash',
          'UPDATE token_users SET password_hash = $3, version = version + 1 WHERE id = $1 AND password_hash = $2',
          [id, expected, next],
        )) > 0,
      update: updates.user,
    },
    sessions,
    browserSessions: pgBrowserSessions(pool),
    codes: pgCodes(pool),
    keys: {
      active: (realmId) =>
        q.one('keys.active', 'SELECT * FROM token_keys WHERE realm_id = $1 ORDER BY created_at DESC LIMIT 1', [realmId], row.key),
      activeKid: (realmId) =>
        q.one(
          'keys.active-kid',
          'SELECT kid FROM token_keys WHERE realm_id = $1 ORDER BY created_at DESC LIMIT 1',
          [realmId],
          (r) => r.kid as string,
        ),
      get: (realmId, kid) => q.one('keys.get', 'SELECT * FROM token_keys WHERE realm_id = $1 AND kid = $2', [realmId, kid], row.key),
      list: (realmId) => q.many('keys.list', 'SELECT * FROM token_keys WHERE realm_id = $1 ORDER BY created_at DESC', [realmId], row.key),
      insert: async (k) => {
        await insertKey(q, k);
      },
    },
    failures: pgFailureCounter(pool),
    revocations,
  };
}
