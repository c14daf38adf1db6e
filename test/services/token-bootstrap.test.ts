import { decodeJwt } from 'jose';
import { openTokenCore, type TokenCore } from '../../core/token';
import { PLATFORM_ADMIN_ROLE } from '../../core/token/roles';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { tokenBootstrap } from '../../services/token/bootstrap';
import { fastHasher, pooledKeys } from '../shared/crypto-fixtures';

/** The first start's accounts on one data directory: the demo client and user, and the platform administrator. */
describe('the token bootstrap', () => {
  let core: TokenCore;
  beforeEach(async () => {
    core = await openTokenCore({
      stores: sqliteTokenStores(':memory:'),
      publicUrl: 'http://x',
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
  });
  afterEach(() => core.close());

  it('makes a platform administrator whose tokens carry the platform-admin role; a later start keeps it', async () => {
    const first = await tokenBootstrap(core, {});
    expect(first).toMatchObject({ admin_username: 'admin', admin_password: expect.any(String) });
    const tokens = await core.service.loginUser({ realm: first.realm, username: first.admin_username, password: first.admin_password });
    expect((decodeJwt(tokens.access_token).realm_access as { roles: string[] }).roles).toEqual([PLATFORM_ADMIN_ROLE]);
    // The demo user is no administrator.
    const demo = await core.service.loginUser({ realm: first.realm, username: first.username, password: first.password });
    expect((decodeJwt(demo.access_token).realm_access as { roles: string[] }).roles).not.toContain(PLATFORM_ADMIN_ROLE);

    const again = await tokenBootstrap(core, first);
    expect(again).toEqual(first);
    expect((await core.admin.listUsers(first.realm)).map((u) => u.username).sort()).toEqual(['admin', 'demo-user']);
  });

  it('gives a data directory from before the administrator one at its next start, keeping its demo accounts', async () => {
    const { admin_username: _u, admin_password: _p, ...older } = await tokenBootstrap(core, {});
    const upgraded = await tokenBootstrap(core, older);
    expect(upgraded).toMatchObject({ ...older, admin_username: expect.stringMatching(/^admin/), admin_password: expect.any(String) });
    // The name was taken by the first administrator (its password lost with the old file): a new one, suffixed.
    expect(upgraded.admin_username).not.toBe('admin');
  });
});
