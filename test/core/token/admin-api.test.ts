import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Admin } from '../../../core/shared/admin/access';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import { migrate, openPool, type PgPool } from '../../../core/shared/postgres';
import { openTokenCore, type TokenCore } from '../../../core/token';
import type { TokenStores } from '../../../core/token/ports';
import { pgTokenStores, TOKEN_PG_MIGRATIONS } from '../../../core/token/postgres';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { describePg, freshDatabase } from '../../shared/postgres';
import { fastHasher, pooledKeys, PUBLIC_URL, testClock } from '../../shared/helpers';

const PASSWORD = 'a long enough password';
const platform: Admin = { platform: true, realm: '', actor: { kind: 'cli', name: 'test' } };
const realmAdminOf = (realm: string): Admin => ({ platform: false, realm, actor: { kind: 'user', realm, name: 'ra' } });
const as = (caller: Admin, clientAddress = '192.0.2.1') => ({ caller, clientAddress });

async function openCore(stores: TokenStores) {
  const clock = testClock();
  const audit = memoryAuditStore();
  const core = await openTokenCore({
    stores,
    publicUrl: PUBLIC_URL,
    clock,
    hasher: fastHasher,
    generateKey: pooledKeys,
    lockout: { threshold: 2, accountThreshold: 100, seconds: 900 },
    audit: auditTrail({ store: audit, log: pino({ level: 'silent' }), clock, newId: randomUUID }),
  });
  return { core, audit, clock };
}

/** The admin API's rules over the core alone (docs/admin.md); its routes are tested over HTTP in test/e2e/token/admin-*. */
describe('the token admin API (core)', () => {
  let core: TokenCore;
  let audit: ReturnType<typeof memoryAuditStore>;
  let r1: string;
  let r2: string;

  beforeEach(async () => {
    ({ core, audit } = await openCore(sqliteTokenStores(':memory:')));
    r1 = (await core.adminApi.createRealm({ name: 'one' }, as(platform))).realm;
    r2 = (await core.adminApi.createRealm({ name: 'two' }, as(platform))).realm;
  });
  afterEach(() => core.close());

  it('answers another realm exactly as a realm that does not exist, by id or name: nothing about it is disclosed', async () => {
    const ra = as(realmAdminOf(r2));
    const errors = await Promise.all(
      [r1, 'one', 'ONE', 'no-such-realm'].map((realm) => core.adminApi.listUsers({ realm }, ra).catch((e: Error) => e)),
    );
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual(['NotFound', 'NotFound', 'NotFound', 'NotFound']);
    // Each names only what was asked: asked by name, the realm's id is not given away.
    expect(errors.map((e) => (e as Error).message)).toEqual([
      `no realm '${r1}'`,
      "no realm 'one'",
      "no realm 'ONE'",
      "no realm 'no-such-realm'",
    ]);
    await expect(core.adminApi.listUsers({ realm: 'TWO' }, ra)).resolves.toMatchObject({ total: 0 });
  });

  it('records a refusal before the realm is known without a realm (only platform administrators read it), and never a secret', async () => {
    await core.adminApi.createUser({ realm: r1, username: 'victim', password: PASSWORD }, as(platform));
    await expect(
      core.adminApi.setUserPassword({ realm: r1, username: 'victim', password: 'hijacked password' }, as(realmAdminOf(r2))),
    ).rejects.toThrow('no realm');
    const refused = audit.events.find((e) => e.type === 'user.password' && e.outcome === 'failure')!;
    expect(refused).toMatchObject({ actor: { name: 'ra', realm: r2 }, target: { kind: 'user', id: 'victim' }, address: '192.0.2.1' });
    expect(refused.realm).toBeUndefined();
    expect(JSON.stringify(audit.events)).not.toMatch(/hijacked|long enough/);
  });

  it('checks a realm administrator against the user as written: a grant of platform-admin between its read and its write is seen (403)', async () => {
    await core.adminApi.createUser({ realm: r2, username: 'ann', password: PASSWORD }, as(platform));
    // The store's first update of ann is preceded by a platform administrator's grant, as a race would have it.
    const { store } = core;
    let raced = false;
    const update = store.users.update;
    store.users.update = async (realmId, username, patch, ifVersion) => {
      if (!raced) {
        raced = true;
        await update(realmId, username, { roles: ['platform-admin'] });
      }
      return update(realmId, username, patch, ifVersion);
    };
    await expect(core.adminApi.updateUser({ realm: r2, username: 'ann', enabled: false }, as(realmAdminOf(r2)))).rejects.toThrow(
      'only a platform administrator',
    );
    expect(await store.users.get(r2, 'ann')).toMatchObject({ enabled: true, roles: ['platform-admin'] });
    store.users.update = update;
  });

  it('sets a password or a new client secret only on the record its checks saw: a grant of platform-admin meanwhile is seen (403)', async () => {
    await core.adminApi.createUser({ realm: r2, username: 'bea', password: PASSWORD }, as(platform));
    await core.adminApi.createClient({ realm: r2, client_id: 'ops' }, as(platform));
    const { store } = core;
    const users = store.users.update;
    const clients = store.clients.update;
    store.users.update = async (realmId, username, patch, ifVersion) => {
      store.users.update = users;
      await users(realmId, username, { roles: ['platform-admin'] });
      return users(realmId, username, patch, ifVersion);
    };
    store.clients.update = async (realmId, clientId, patch, ifVersion) => {
      store.clients.update = clients;
      await clients(realmId, clientId, { roles: ['platform-admin'] });
      return clients(realmId, clientId, patch, ifVersion);
    };
    const before = await store.users.get(r2, 'bea');
    const ra = as(realmAdminOf(r2));
    await expect(core.adminApi.setUserPassword({ realm: r2, username: 'bea', password: 'the realm admin knows it' }, ra)).rejects.toThrow(
      'only a platform administrator',
    );
    expect((await store.users.get(r2, 'bea'))!.passwordHash).toBe(before!.passwordHash);
    const secret = (await store.clients.get(r2, 'ops'))!.secretHash;
    await expect(core.adminApi.regenerateClientSecret({ realm: r2, client_id: 'ops' }, ra)).rejects.toThrow(
      'only a platform administrator',
    );
    expect((await store.clients.get(r2, 'ops'))!.secretHash).toBe(secret);
  });

  it('unlock lifts a lock for an address the administrator never saw', async () => {
    await core.adminApi.createUser({ realm: r1, username: 'ann', password: PASSWORD }, as(platform));
    const login = (password: string) => core.service.loginUser({ realm: r1, username: 'ann', password }, { clientAddress: '198.51.100.7' });
    for (let i = 0; i < 2; i++) await expect(login('wrong password')).rejects.toThrow('Authentication failed');
    await expect(login(PASSWORD)).rejects.toThrow('Authentication failed');
    const before = await core.adminApi.getUser({ realm: r1, username: 'ann' }, as(platform));
    const after = await core.adminApi.unlockUser({ realm: r1, username: 'ann' }, as(platform));
    expect(after.version).toBe(before.version + 1);
    await expect(login(PASSWORD)).resolves.toMatchObject({ access_token: expect.any(String) });
    expect(audit.events.map((e) => `${e.type} ${e.outcome}`)).toContain('user.unlock success');
  });

  it('ends the sessions a change makes stale, and only those', async () => {
    await core.adminApi.createUser({ realm: r1, username: 'ann', password: PASSWORD, email: 'a@example.com' }, as(platform));
    const ended = async (patch: object) => {
      const t = await core.service.loginUser({ realm: r1, username: 'ann', password: PASSWORD });
      await core.adminApi.updateUser({ realm: r1, username: 'ann', ...patch }, as(platform));
      return (await core.service.introspect({ realm: r1, token: t.access_token })).active === 'false';
    };
    expect(await ended({ email: 'b@example.com' })).toBe(false);
    expect(await ended({ roles: [] })).toBe(false);
    expect(await ended({ roles: ['x'] })).toBe(true);
    expect(await ended({ tenant_id: 'elsewhere' })).toBe(true);
    expect(await ended({ enabled: false })).toBe(true);
    await core.adminApi.updateUser({ realm: r1, username: 'ann', enabled: true }, as(platform));
    const t = await core.service.loginUser({ realm: r1, username: 'ann', password: PASSWORD });
    await core.adminApi.updateRealm({ realm: 'one', access_token_lifespan: 60 }, as(platform));
    expect((await core.service.introspect({ realm: r1, token: t.access_token })).active).toBe('true');
    // Disabled and enabled again: its old sessions stay ended.
    await core.adminApi.updateRealm({ realm: 'one', enabled: false }, as(platform));
    await core.adminApi.updateRealm({ realm: 'one', enabled: true }, as(platform));
    expect((await core.service.introspect({ realm: r1, token: t.access_token })).active).toBe('false');
  });
});

/** Two replicas on one PostgreSQL database: updates from the same version, one through each, and exactly one is written. */
describePg('the token admin API on PostgreSQL, two replicas', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pools: PgPool[];
  let cores: TokenCore[];

  beforeAll(async () => {
    db = await freshDatabase();
    pools = [openPool(db.url, { max: 4 }), openPool(db.url, { max: 4 })];
    await migrate(pools[0], 'token', TOKEN_PG_MIGRATIONS);
    cores = [];
    for (const pool of pools) cores.push((await openCore(pgTokenStores(pool))).core);
  });
  afterAll(async () => {
    for (const c of cores ?? []) await c.close();
    await Promise.all((pools ?? []).map((p) => p.end()));
    await db?.drop();
  });

  it('one of two updates from one version wins, the other is 412; without a version both apply', async () => {
    const realm = (await cores[0].adminApi.createRealm({ name: 'pg' }, as(platform))).realm;
    const made = await cores[0].adminApi.createUser({ realm, username: 'ann', password: PASSWORD }, as(platform));
    const outcomes = await Promise.allSettled(
      cores.map((c, i) =>
        c.adminApi.updateUser({ realm, username: 'ann', version: made.version, email: `${i}@example.com` }, as(platform)),
      ),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason.constructor.name).toBe('PreconditionFailed');
    const free = await Promise.all(cores.map((c, i) => c.adminApi.updateUser({ realm, username: 'ann', roles: [`r${i}`] }, as(platform))));
    expect(free).toHaveLength(2);
    expect((await cores[1].adminApi.getUser({ realm, username: 'ann' }, as(platform))).version).toBe(made.version + 3);
    const client = await cores[0].adminApi.createClient({ realm, client_id: 'svc' }, as(platform));
    const renamed = await Promise.allSettled(
      cores.map((c, i) => c.adminApi.updateClient({ realm, client_id: 'svc', version: client.version, roles: [`x${i}`] }, as(platform))),
    );
    expect(renamed.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});
