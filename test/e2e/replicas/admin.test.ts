import { describePg, freshDatabase } from '../../shared/postgres';
import { eventually } from '../../shared/wait';
import { call } from '../models/admin-catalog-fixture';
import { freePort, startInTemp, type Started } from '../shared/server';

jest.setTimeout(120_000);

const ADMIN = '/admin/api/v1';
const AUTH = '/auth/api/v1';

/**
 * Two replicas on one PostgreSQL database, as behind a load balancer: what an administrator changes
 * through one is what the other serves (the time seen is printed; the wait is no bound:
 * test/shared/wait.ts), one audit trail, and versions that hold across them.
 */
describePg('the admin API on two replicas of one PostgreSQL database', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const replicas: Started[] = [];
  let realm: string;
  let admin: string;

  const url = (i: number) => replicas[i].url;
  const login = (i: number, username: string, password: string) =>
    call(url(i), 'POST', `${AUTH}/oauth/connect/user/login`, { body: { realm, username, password } });
  const api = (i: number, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    call(url(i), method, ADMIN + path, { auth: admin, ...opts });

  beforeAll(async () => {
    db = await freshDatabase();
    const env = { DATABASE_URL: db.url, PUBLIC_URL: `http://127.0.0.1:${await freePort()}` };
    replicas.push(await startInTemp('all', env));
    replicas.push(await startInTemp('all', env));
    const values = replicas[0].bootstrap!.values;
    realm = values.realm;
    const signed = await login(0, values.admin_username, values.admin_password);
    expect(signed.status).toBe(200);
    admin = `Bearer ${signed.body.access_token}`;
  }, 90_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db?.drop();
  });

  it("takes one replica's administrator token on the other", async () => {
    expect((await api(1, 'GET', '/realms')).status).toBe(200);
  });

  it('a user made through one signs in through the other; disabled there, refused here', async () => {
    const made = await api(0, 'POST', `/realms/${realm}/users`, { body: { username: 'carol', password: 'carol-password-1' } });
    expect(made.status).toBe(201);
    const ms = await eventually(async () => (await login(1, 'carol', 'carol-password-1')).status === 200);
    process.stdout.write(`admin: user made on replica 1, signs in on replica 2 after ${ms} ms\n`);
    expect((await api(1, 'PATCH', `/realms/${realm}/users/carol`, { body: { enabled: false } })).status).toBe(200);
    const refused = await eventually(async () => (await login(0, 'carol', 'carol-password-1')).status !== 200);
    process.stdout.write(`admin: user disabled on replica 2, refused on replica 1 after ${refused} ms\n`);
    expect((await login(0, 'carol', 'carol-password-1')).status).toBe(401);
  });

  it('a client made through one is read through the other, and of two updates from one version exactly one wins', async () => {
    expect((await api(0, 'POST', `/realms/${realm}/clients`, { body: { client_id: 'shared-app', roles: ['search:read'] } })).status).toBe(
      201,
    );
    await eventually(async () => (await api(1, 'GET', `/realms/${realm}/clients/shared-app`)).status === 200);
    const read = await api(1, 'GET', `/realms/${realm}/clients/shared-app`);
    const etag = read.headers.get('etag')!;
    const both = await Promise.all(
      [0, 1].map((i) =>
        api(i, 'PATCH', `/realms/${realm}/clients/shared-app`, { body: { roles: [`role-${i}`] }, headers: { 'if-match': etag } }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = both.find((r) => r.status === 200)!.body as { roles: string[]; version: number };
    expect((await api(0, 'GET', `/realms/${realm}/clients/shared-app`)).body).toMatchObject({
      roles: winner.roles,
      version: winner.version,
    });
  });

  it('an LM key made through one works at the gateway of the other; revoked there, refused here', async () => {
    const made = await api(0, 'POST', '/keys', { body: { name: 'replicated', tenant_id: realm } });
    expect(made.status).toBe(201);
    const models = (i: number) => call(url(i), 'GET', '/proxy/api/v1/models', { headers: { 'api-key': made.body.api_key } });
    await eventually(async () => (await models(1)).status === 200);
    expect((await api(1, 'DELETE', `/keys/${made.body.id}`)).status).toBe(200);
    const ms = await eventually(async () => (await models(0)).status === 401);
    process.stdout.write(`admin: key revoked on replica 2, refused on replica 1 after ${ms} ms\n`);
  });

  it('keeps one audit trail: what one replica recorded, the other lists', async () => {
    const events = await api(1, 'GET', '/audit-events?type=user.&limit=200');
    expect(events.status).toBe(200);
    const types = (events.body.items as { type: string; target?: { id: string } }[])
      .filter((e) => e.target?.id === 'carol')
      .map((e) => e.type);
    expect(types.sort()).toEqual(['user.create', 'user.update']);
    const keyEvents = await api(0, 'GET', '/audit-events?type=key.revoke');
    expect(keyEvents.body.items).toHaveLength(1);
  });

  it("lists both replicas in either one's overview (their heartbeats in PostgreSQL), each the current one in its own", async () => {
    const overview = async (i: number) => {
      const res = await call(url(i), 'POST', '/graphql', {
        auth: admin,
        body: { query: '{ platformStatus { replicas { id live current serves } } }' },
      });
      return res.body.data.platformStatus.replicas as { id: string; live: boolean; current: boolean; serves: string[] }[];
    };
    const [seen0, seen1] = [await overview(0), await overview(1)];
    expect(seen0.map((r) => r.id).sort()).toEqual(seen1.map((r) => r.id).sort());
    expect(seen0).toHaveLength(2);
    expect(seen0.every((r) => r.live && r.serves.includes('gateway'))).toBe(true);
    const current = (seen: { id: string; current: boolean }[]) => seen.filter((r) => r.current).map((r) => r.id);
    expect(current(seen0)).toHaveLength(1);
    expect(current(seen1)).toHaveLength(1);
    expect(current(seen0)).not.toEqual(current(seen1));
  });
});
