import { PLATFORM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { describePg, freshDatabase } from '../../shared/postgres';
import { eventually } from '../../shared/wait';
import { freePort, startInTemp, type Started } from '../shared/server';
import { ADMIN, bearerOf, call, chat, listed } from './admin-catalog-fixture';
const ALIAS = { group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192 };

/**
 * Two platforms on one PostgreSQL database (two replicas): a catalog change made through one is
 * served by the other within its poll of the change counter (500 ms; the time seen is printed, the
 * wait itself is no bound: test/shared/wait.ts), and versions hold across them.
 */
describePg('the catalog admin API on two replicas of one PostgreSQL database', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let replicas: Started[] = [];
  let key: string;
  let platform: string;

  beforeAll(async () => {
    db = await freshDatabase();
    // One issuer for both, as behind a load balancer: a token of one is good on the other.
    const env = { DATABASE_URL: db.url, PUBLIC_URL: `http://127.0.0.1:${await freePort()}` };
    replicas.push(await startInTemp('all', env));
    replicas.push(await startInTemp('all', env));
    key = replicas[0].bootstrap!.values.api_key;
    platform = await bearerOf(replicas[0], replicas[0].bootstrap!.values.realm, 'replica-platform-admin', [PLATFORM_ADMIN_ROLE]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    replicas = [];
    await db?.drop();
  });
  const url = (i: number) => replicas[i].url;
  const admin = (i: number, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    call(url(i), method, ADMIN + path, { auth: platform, ...opts });

  it('a model added through one is listed and served by the other; deactivated there, refused here', async () => {
    expect((await admin(0, 'PUT', '/models/shared-chat', { body: ALIAS })).status).toBe(200);
    const seen = await eventually(async () => (await listed(url(1), key)).includes('shared-chat'));
    process.stdout.write(`catalog: added on replica 1, listed by replica 2 after ${seen} ms\n`);
    expect((await chat(url(1), key, 'shared-chat')).status).toBe(200);

    expect((await admin(1, 'DELETE', '/models/shared-chat', { headers: { 'if-match': '"1"' } })).status).toBe(200);
    const gone = await eventually(async () => (await chat(url(0), key, 'shared-chat')).status === 404);
    process.stdout.write(`catalog: deactivated on replica 2, refused by replica 1 after ${gone} ms\n`);
    expect((await chat(url(0), key, 'shared-chat')).text).toMatch(/model_deactivated/);
  });

  it("a version read on one is stale on the other once changed there (412); a file model's first change is made once", async () => {
    const read = await admin(0, 'GET', '/models/local-image');
    expect(read.headers.get('etag')).toBe('"1"');
    const both = await Promise.all([0, 1].map((i) => admin(i, 'DELETE', '/models/local-image', { headers: { 'if-match': '"1"' } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
    expect((await admin(1, 'GET', '/models/local-image')).body).toMatchObject({ version: 2, active: false });
    expect(
      (
        await admin(0, 'PUT', '/models/local-image', {
          body: { ...ALIAS, kind: 'image', contextLength: 4000 },
          headers: { 'if-match': '"1"' },
        })
      ).status,
    ).toBe(412);
  });
});
