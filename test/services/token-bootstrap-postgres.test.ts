import { migrate, openPool, type PgPool } from '../../core/shared/postgres';
import { openTokenCore, type TokenCore } from '../../core/token';
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
    await migrate(pools[0]!, 'token', TOKEN_PG_MIGRATIONS);
    cores = await Promise.all(pools.map((postgres) => openTokenCore({ postgres, publicUrl: 'http://x', hasher: fastHasher, generateKey: pooledKeys })));
  });
  afterAll(async () => {
    await Promise.all(cores.map((c) => c.close()));
    await Promise.all(pools.map((p) => p.end()));
    await db?.drop();
  });

  it('makes one default realm, and demo accounts of its own for each replica, every one working', async () => {
    const boots = await Promise.all(cores.map((core) => tokenBootstrap(core, {})));
    expect(new Set(boots.map((b) => b.realm)).size).toBe(1);
    expect(await cores[0]!.admin.listRealms()).toEqual([expect.objectContaining({ id: boots[0]!.realm, name: 'default', default: true })]);
    expect(new Set(boots.map((b) => b.client_id)).size).toBe(3);
    expect(new Set(boots.map((b) => b.username)).size).toBe(3);
    for (const [i, b] of boots.entries()) {
      const core = cores[(i + 1) % cores.length]!;
      await expect(core.service.issueForClient({ realm: b.realm!, client_id: b.client_id!, client_secret: b.client_secret! })).resolves.toMatchObject({ token_type: 'Bearer' });
      await expect(core.service.loginUser({ realm: b.realm!, username: b.username!, password: b.password! })).resolves.toMatchObject({ token_type: 'Bearer' });
    }
  });
});
