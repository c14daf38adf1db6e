import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openTokenCore, type TokenCore } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { AuthenticationFailed } from '../../../core/token/errors';
import { fastHasher, pooledKeys } from '../../shared/crypto-fixtures';

const open = (file: string) =>
  openTokenCore({ stores: sqliteTokenStores(file), publicUrl: 'http://x', hasher: fastHasher, generateKey: pooledKeys });
const KEYED = /^hmac-sha256\$[A-Za-z0-9+/]{43}=$/;

describe('generated client secrets are kept as keyed fast hashes', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'client-hash-'))));
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a created and a rotated secret as HMAC-SHA-256, never the secret, and checks it without scrypt', async () => {
    const core = await open(join(dir, 'token.db'));
    const realm = (await core.admin.createRealm({ name: 'r' })).id;
    const created = await core.admin.createClient({ realm, clientId: 'svc' });
    const stored = (await core.store.clients.get(realm, 'svc'))!.secretHash!;
    expect(stored).toMatch(KEYED);
    expect(stored).not.toContain(created.client_secret);

    const scrypt = jest.spyOn(crypto, 'scrypt');
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret: created.client_secret })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret: 'x'.repeat(43) })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
    await expect(core.service.issueForClient({ realm, client_id: 'nobody', client_secret: created.client_secret })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
    expect(scrypt).not.toHaveBeenCalled();

    const rotated = await core.admin.rotateClientSecret(realm, 'svc');
    expect((await core.store.clients.get(realm, 'svc'))!.secretHash).toMatch(KEYED);
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret: created.client_secret })).rejects.toBeInstanceOf(
      AuthenticationFailed,
    );
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret: rotated.client_secret })).resolves.toBeDefined();
    await core.close();
  });

  it('keeps the key in token.db, so a restarted process (or a restored copy) still verifies', async () => {
    const file = join(dir, 'token.db');
    const first = await open(file);
    const realm = (await first.admin.createRealm({ name: 'r' })).id;
    const { client_secret } = await first.admin.createClient({ realm, clientId: 'svc' });
    await first.close();
    const again = await open(file);
    await expect(again.service.issueForClient({ realm, client_id: 'svc', client_secret })).resolves.toMatchObject({ token_type: 'Bearer' });
    await again.close();
  });

  describe('a data directory from before the keyed hash', () => {
    /** token.db as the previous version left it: schema 3, no hash key, the client's secret as scrypt. */
    async function oldDataDir() {
      const file = join(dir, 'token.db');
      const core = await open(file);
      const realm = (await core.admin.createRealm({ name: 'r' })).id;
      const { client_secret } = await core.admin.createClient({ realm, clientId: 'old' });
      const scryptHash = await fastHasher.hash(client_secret);
      await core.close();
      const db = new Database(file);
      db.prepare('UPDATE clients SET secret_hash = ? WHERE client_id = ?').run(scryptHash, 'old');
      db.prepare("DELETE FROM meta WHERE key = 'secret_hash_key'").run();
      // What the later migrations made, too: the data directory is as version 3 left it.
      db.exec("DROP TABLE revocations; DELETE FROM meta WHERE key = 'revocations_feed'");
      db.exec(`DROP TABLE browser_sessions; DROP TABLE auth_codes; DROP INDEX sessions_by_browser_session;
        ALTER TABLE sessions DROP COLUMN browser_session_id; DELETE FROM clients WHERE client_id = 'platform-console';
        ALTER TABLE clients DROP COLUMN redirect_uris; ALTER TABLE clients DROP COLUMN post_logout_redirect_uris;
        ALTER TABLE clients DROP COLUMN web_origins;
        ALTER TABLE realms DROP COLUMN version; ALTER TABLE clients DROP COLUMN version; ALTER TABLE users DROP COLUMN version;
        DROP INDEX users_by_creation; DROP INDEX clients_by_creation;`);
      db.pragma('user_version = 3');
      db.close();
      return { file, realm, client_secret };
    }
    const hashOf = async (core: TokenCore, realm: string) => (await core.store.clients.get(realm, 'old'))!.secretHash!;

    it('verifies an old scrypt secret, then keeps it as the keyed hash, which later requests check without scrypt', async () => {
      const { file, realm, client_secret } = await oldDataDir();
      const core = await open(file);
      expect(await hashOf(core, realm)).toMatch(/^scrypt\$1024\$/);

      await expect(core.service.issueForClient({ realm, client_id: 'old', client_secret })).resolves.toMatchObject({
        token_type: 'Bearer',
      });
      expect(await hashOf(core, realm)).toMatch(KEYED);
      await core.close();

      const restarted = await open(file);
      const scrypt = jest.spyOn(crypto, 'scrypt');
      await expect(restarted.service.issueForClient({ realm, client_id: 'old', client_secret })).resolves.toMatchObject({
        token_type: 'Bearer',
      });
      expect(scrypt).not.toHaveBeenCalled();
      await restarted.close();
    });

    it('leaves the old hash alone after a wrong secret', async () => {
      const { file, realm } = await oldDataDir();
      const core = await open(file);
      const before = await hashOf(core, realm);
      await expect(core.service.issueForClient({ realm, client_id: 'old', client_secret: 'y'.repeat(43) })).rejects.toBeInstanceOf(
        AuthenticationFailed,
      );
      expect(await hashOf(core, realm)).toBe(before);
      await core.close();
    });
  });

  it('keeps a secret a person chose with scrypt, as a password, and does not move it to the fast hash', async () => {
    const core = await open(join(dir, 'token.db'));
    const realm = (await core.admin.createRealm({ name: 'r' })).id;
    await core.admin.createClient({ realm, clientId: 'chosen', secret: 'our team secret 2026' });
    expect((await core.store.clients.get(realm, 'chosen'))!.secretHash).toMatch(/^scrypt\$/);
    await expect(core.service.issueForClient({ realm, client_id: 'chosen', client_secret: 'our team secret 2026' })).resolves.toBeDefined();
    expect((await core.store.clients.get(realm, 'chosen'))!.secretHash).toMatch(/^scrypt\$/);
    await core.close();
  });
});
