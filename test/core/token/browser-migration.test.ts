import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../core/shared/sqlite';
import { migrate, openPool } from '../../../core/shared/postgres';
import type { ClientRecord, TokenStore } from '../../../core/token/ports';
import { TOKEN_PG_MIGRATIONS, pgTokenStore } from '../../../core/token/postgres';
import { sqliteTokenStore } from '../../../core/token/sqlite';
import { tokenMigrations } from '../../../core/token/sqlite/schema';
import { describePg, freshDatabase } from '../../shared/postgres';
import { T0 } from './store-fixtures';

/** Two realms and a client, a session of each kind, as a store from before sign-in for people kept them. */
const old = {
  realms: [
    { id: randomUUID(), name: 'first', createdAt: T0 },
    { id: randomUUID(), name: 'second', createdAt: T0 + 1000 },
  ],
  client: { id: randomUUID(), clientId: 'svc' },
  session: { id: randomUUID(), jti: randomUUID() },
};

/** What the upgrade made of the old rows: each realm has the public client of the platform's pages, nothing else changed. */
async function expectUpgraded(store: TokenStore) {
  const [first, second] = old.realms;
  const consoleClient = (realm: (typeof old.realms)[number]): ClientRecord => ({
    id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    realmId: realm.id,
    clientId: 'platform-console',
    secretHash: null,
    enabled: true,
    roles: [],
    scopes: ['openid', 'profile', 'email'],
    tenantId: realm.id,
    redirectUris: ['/graphiql', '/console/'],
    postLogoutRedirectUris: ['/graphiql', '/console/'],
    webOrigins: [],
    createdAt: realm.createdAt,
    version: 1,
  });
  const svc: ClientRecord = {
    id: old.client.id,
    realmId: first.id,
    clientId: 'svc',
    secretHash: 'hmac-sha256$old',
    enabled: true,
    roles: ['search:read'],
    scopes: ['openid'],
    tenantId: 'tenant-a',
    redirectUris: [],
    postLogoutRedirectUris: [],
    webOrigins: [],
    createdAt: T0 + 5,
    version: 1,
  };
  const firstClients = await store.clients.list(first.id);
  expect(firstClients.sort((a, b) => a.clientId.localeCompare(b.clientId))).toEqual([consoleClient(first), svc]);
  expect(await store.clients.list(second.id)).toEqual([consoleClient(second)]);
  const ids = [...firstClients, ...(await store.clients.list(second.id))].map((c) => c.id);
  expect(new Set(ids).size).toBe(3);
  expect(await store.sessions.get(old.session.id)).toMatchObject({ refreshJti: old.session.jti, browserSessionId: null, revokedAt: null });
  // The console client is a public client of the platform's own pages, no web origin (CORS) of its own.
  expect(await store.clients.webOrigins()).toEqual([]);
}

describe('token.db from before sign-in for people (schema 5), upgraded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-upgrade-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gives every existing realm the platform's console client, keeping what was there", async () => {
    const file = join(dir, 'token.db');
    const db = openDatabase(file, tokenMigrations.slice(0, 5));
    for (const r of old.realms)
      db.prepare(
        'INSERT INTO realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at) VALUES (?, ?, 1, 300, 1800, ?, ?)',
      ).run(r.id, r.name, 'ab'.repeat(64), r.createdAt);
    db.prepare(
      `INSERT INTO clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at)
       VALUES (?, ?, 'svc', 'hmac-sha256$old', 1, '["search:read"]', '["openid"]', 'tenant-a', ?)`,
    ).run(old.client.id, old.realms[0].id, T0 + 5);
    db.prepare(
      `INSERT INTO sessions (id, realm_id, client_id, user_id, scope, refresh_jti, created_at, expires_at)
       VALUES (?, ?, 'svc', NULL, 'openid', ?, ?, ?)`,
    ).run(old.session.id, old.realms[0].id, old.session.jti, T0, T0 + 1_800_000);
    db.close();

    const store = sqliteTokenStore(file);
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(tokenMigrations.length);
      await expectUpgraded(store);
    } finally {
      await store.close();
    }
    // Opened again, nothing is added twice.
    const again = sqliteTokenStore(file);
    try {
      await expectUpgraded(again);
    } finally {
      await again.close();
    }
  });
});

describePg('the token tables on PostgreSQL from before sign-in for people (version 2), upgraded', () => {
  it("gives every existing realm the platform's console client, keeping what was there", async () => {
    const db = await freshDatabase();
    const pool = openPool(db.url, { max: 2 });
    try {
      await migrate(pool, 'token', TOKEN_PG_MIGRATIONS.slice(0, 2));
      for (const r of old.realms)
        await pool.query(
          `INSERT INTO token_realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at)
           VALUES ($1, $2, true, 300, 1800, $3, $4)`,
          [r.id, r.name, 'ab'.repeat(64), new Date(r.createdAt)],
        );
      await pool.query(
        `INSERT INTO token_clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at)
         VALUES ($1, $2, 'svc', 'hmac-sha256$old', true, '["search:read"]', '["openid"]', 'tenant-a', $3)`,
        [old.client.id, old.realms[0].id, new Date(T0 + 5)],
      );
      await pool.query(
        `INSERT INTO token_sessions (id, realm_id, client_id, user_id, scope, refresh_jti, created_at, expires_at)
         VALUES ($1, $2, 'svc', NULL, 'openid', $3, $4, $5)`,
        [old.session.id, old.realms[0].id, old.session.jti, new Date(T0), new Date(T0 + 1_800_000)],
      );

      expect(await migrate(pool, 'token', TOKEN_PG_MIGRATIONS)).toBe(TOKEN_PG_MIGRATIONS.length - 2);
      expect(await migrate(pool, 'token', TOKEN_PG_MIGRATIONS)).toBe(0);
      const store = pgTokenStore(pool);
      try {
        await expectUpgraded(store);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
