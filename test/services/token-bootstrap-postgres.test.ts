import { migrate, openPool, withAdvisoryLock, type PgPool } from '../../core/shared/postgres';
import { openTokenCore, type TokenCore } from '../../core/token';
import { pgTokenStores } from '../../core/token/postgres';
import { TOKEN_PG_MIGRATIONS } from '../../core/token/postgres';
import { tokenBootstrap } from '../../services/token/bootstrap';
import { fastHasher, pooledKeys } from '../shared/crypto-fixtures';
import { describePg, freshDatabase } from '../shared/postgres';

describePg('the token bootstrap of replicas starting together on one database', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pools: PgPool[] = [];
  let cores: TokenCore[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
    pools = [0, 1, 2].map(() => openPool(db.url, { max: 4 }));
    await migrate(pools[0], 'token', TOKEN_PG_MIGRATIONS);
    cores = await Promise.all(
      pools.map((postgres) =>
        openTokenCore({ stores: pgTokenStores(postgres), publicUrl: 'http://x', hasher: fastHasher, generateKey: pooledKeys }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(cores.map((c) => c.close()));
    await Promise.all(pools.map((p) => p.end()));
    await db?.drop();
  });

  it('taking turns under the bootstrap lock, makes one realm and one set of demo accounts: the first has their secrets, the others their ids', async () => {
    const joined: boolean[] = [false, false, false];
    const boots = await Promise.all(
      cores.map((core, i) =>
        withAdvisoryLock(db.url, 42, () => tokenBootstrap(core, {}, { shared: true, joined: () => void (joined[i] = true) })),
      ),
    );
    expect(await cores[0].admin.listRealms()).toEqual([expect.objectContaining({ id: boots[0].realm, name: 'default', default: true })]);
    const makers = boots.filter((b) => b.client_secret);
    expect(makers).toHaveLength(1);
    expect(joined.filter(Boolean)).toHaveLength(2);
    const maker = makers[0];
    expect(maker).toMatchObject({
      client_id: 'demo-client',
      username: 'demo-user',
      password: expect.any(String),
      admin_username: 'admin',
      admin_password: expect.any(String),
    });
    for (const b of boots.filter((x) => x !== maker)) {
      expect(b).toEqual({
        realm: maker.realm,
        tenant_id: maker.tenant_id,
        client_id: 'demo-client',
        username: 'demo-user',
        admin_username: 'admin',
      });
    }
    // One platform administrator for the database, whichever replica made it.
    expect((await cores[0].admin.listUsers(maker.realm)).filter((u) => u.roles.includes('platform-admin')).map((u) => u.username)).toEqual([
      'admin',
    ]);
    for (const core of cores) {
      await expect(
        core.service.issueForClient({ realm: maker.realm, client_id: maker.client_id, client_secret: maker.client_secret }),
      ).resolves.toMatchObject({ token_type: 'Bearer' });
      await expect(
        core.service.loginUser({ realm: maker.realm, username: maker.username, password: maker.password }),
      ).resolves.toMatchObject({ token_type: 'Bearer' });
    }
    // A later start of a joined replica finds the same, and still joins.
    const again = await tokenBootstrap(cores[1], boots[1].client_secret ? boots[2] : boots[1], { shared: true, joined: () => undefined });
    expect(again).toEqual({
      realm: maker.realm,
      tenant_id: maker.tenant_id,
      client_id: 'demo-client',
      username: 'demo-user',
      admin_username: 'admin',
    });
  });
});
