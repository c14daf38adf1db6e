import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openPool } from '../../../core/shared/postgres';
import { openDatabase } from '../../../core/shared/sqlite';
import type { TokenStore } from '../../../core/token/ports';
import { TOKEN_PG_MIGRATIONS, pgTokenStore } from '../../../core/token/postgres';
import { sqliteTokenStore } from '../../../core/token/sqlite';
import { tokenMigrations } from '../../../core/token/sqlite/schema';
import { describePg, freshDatabase } from '../../shared/postgres';
import { T0 } from './store-fixtures';

/** A realm with a client and a user, as a store from before versions (token.db 6, PostgreSQL 3) kept them. */
const old = { realm: randomUUID(), client: randomUUID(), user: randomUUID() };
const realmRow = [old.realm, 'versionless', 300, 1800, 'ab'.repeat(64)];
const clientRow = [old.client, old.realm, 'svc', 'hmac-sha256$old', '["search:read"]', '["openid"]', 'tenant-a'];
const userRow = [old.user, old.realm, 'ann', 'scrypt$old', '["search:read"]', 'tenant-a', 'ann@example.com'];

/** Every existing row is at version 1, and updates from it as a new one would. */
async function expectVersioned(store: TokenStore) {
  expect(await store.realms.get(old.realm)).toMatchObject({ name: 'versionless', version: 1 });
  expect(await store.clients.get(old.realm, 'svc')).toMatchObject({ secretHash: 'hmac-sha256$old', version: 1 });
  expect(await store.users.getById(old.user)).toMatchObject({ username: 'ann', version: 1 });
  expect(await store.realms.update(old.realm, { enabled: false }, 1)).toMatchObject({ status: 'ok', record: { version: 2 } });
  expect(await store.clients.update(old.realm, 'svc', { roles: [] }, 1)).toMatchObject({ status: 'ok', record: { version: 2 } });
  expect(await store.users.update(old.realm, 'ann', { roles: [] }, 2)).toEqual({ status: 'stale', version: 1 });
}

describe('token.db from before versions (schema 6), upgraded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-versions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every existing realm, client and user version 1', async () => {
    const file = join(dir, 'token.db');
    const db = openDatabase(file, tokenMigrations.slice(0, 6));
    db.prepare(
      'INSERT INTO realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at) VALUES (?, ?, 1, ?, ?, ?, ?)',
    ).run(...realmRow, T0);
    db.prepare(
      `INSERT INTO clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at)
       VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)`,
    ).run(...clientRow, T0);
    db.prepare(
      `INSERT INTO users (id, realm_id, username, password_hash, enabled, roles, tenant_id, email, email_verified, created_at)
       VALUES (?, ?, ?, ?, 1, ?, ?, ?, 0, ?)`,
    ).run(...userRow, T0);
    db.close();

    const store = sqliteTokenStore(file);
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(tokenMigrations.length);
      await expectVersioned(store);
    } finally {
      await store.close();
    }
  });
});

describePg('the token tables on PostgreSQL from before versions (version 3), upgraded', () => {
  it('gives every existing realm, client and user version 1', async () => {
    const db = await freshDatabase();
    const pool = openPool(db.url, { max: 2 });
    try {
      await migrate(pool, 'token', TOKEN_PG_MIGRATIONS.slice(0, 3));
      const at = new Date(T0);
      await pool.query(
        `INSERT INTO token_realms (id, name, enabled, access_ttl, refresh_ttl, refresh_secret, created_at)
         VALUES ($1, $2, true, $3, $4, $5, $6)`,
        [...realmRow, at],
      );
      await pool.query(
        `INSERT INTO token_clients (id, realm_id, client_id, secret_hash, enabled, roles, scopes, tenant_id, created_at)
         VALUES ($1, $2, $3, $4, true, $5, $6, $7, $8)`,
        [...clientRow, at],
      );
      await pool.query(
        `INSERT INTO token_users (id, realm_id, username, password_hash, enabled, roles, tenant_id, email, email_verified, created_at)
         VALUES ($1, $2, $3, $4, true, $5, $6, $7, false, $8)`,
        [...userRow, at],
      );

      expect(await migrate(pool, 'token', TOKEN_PG_MIGRATIONS)).toBe(TOKEN_PG_MIGRATIONS.length - 3);
      const store = pgTokenStore(pool);
      try {
        await expectVersioned(store);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
