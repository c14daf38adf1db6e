import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReplicas, eventually, startReplicas, type ReplicaSet } from '../../shared/replicas';
import { ROOT, run } from '../shared/server';

const PREFIX = '/cl/search/api/v2';
const TENANT = 'replica-tenant';

/**
 * Two `platform start` processes (one worker each, their own port and data directory) on one fresh
 * PostgreSQL database: an object created through one is found by full-text search on the other, a
 * delete is gone there too, and a replica that was stopped while the other wrote finds it once it
 * is started again. Delays are printed, not asserted (this machine is shared); the bound is only
 * "eventually" (5 s).
 */
describeReplicas('search on two replicas sharing PostgreSQL', () => {
  let set: ReplicaSet;
  /** A bearer for each replica, of one client of TENANT (the same tenant on both). */
  const bearers: string[] = [];
  const delays: Record<string, number[]> = { found: [], gone: [] };

  const cli = (i: number, args: string[]) =>
    run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], {
      env: { ...set.env, PLATFORM_DATA_DIR: set.replicas[i].dataDir },
    });
  const realmOf = (i: number) =>
    (JSON.parse(readFileSync(join(set.replicas[i].dataDir, 'bootstrap.json'), 'utf8')) as { realm: string }).realm;
  const bearerFor = async (i: number, clientId: string, secret: string) => {
    const res = await fetch(`${set.replicas[i].url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, client_secret: secret, realm: realmOf(i) }),
    });
    expect(res.status).toBe(200);
    return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
  };
  const call = async (i: number, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${set.replicas[i].url}${PREFIX}${path}`, {
      method,
      headers: { authorization: bearers[i], 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const found = async (i: number, query: string) => {
    const r = await call(i, 'POST', `/fulltext?${new URLSearchParams({ query_string: query, page_size: '10' })}`, {});
    expect(r.status).toBe(200);
    return (r.body.result as { object_id: string }[]).map((h) => h.object_id);
  };

  beforeAll(async () => {
    set = await startReplicas({ count: 2 });
    // One client of TENANT on each replica (the token service may keep its state per replica or shared).
    const clientId = 'search-replicas';
    const args = ['client', 'create', '--client-id', clientId, '--tenant', TENANT, '--roles', 'search:read,search:write'];
    const first = await cli(0, args);
    expect(first.status).toBe(0);
    const secret = (JSON.parse(first.stdout) as { client_secret: string }).client_secret;
    const second = await cli(1, args);
    const secondSecret = second.status === 0 ? (JSON.parse(second.stdout) as { client_secret: string }).client_secret : secret;
    bearers.push(await bearerFor(0, clientId, secret), await bearerFor(1, clientId, secondSecret));
  }, 180_000);

  afterAll(async () => {
    process.stdout.write(
      `search replicas (REST, two processes): found on the other after ${delays.found.join(', ')} ms; ` +
        `a delete gone after ${delays.gone.join(', ')} ms\n`,
    );
    await set?.stop();
  });

  it('finds on B what was created on A, and no longer once it was deleted on A', async () => {
    for (const [i, word] of ['kittiwakes', 'guillemots', 'razorbills'].entries()) {
      const created = await call(0, 'POST', '/objects', { title: `Note ${i}`, content: `The ${word} nest on the cliffs.` });
      expect(created.status).toBe(201);
      const id = created.body.object_id as string;
      delays.found.push(await eventually(async () => (await found(1, word)).includes(id), 20_000, 10));
      expect((await call(0, 'DELETE', `/objects/${id}`)).status).toBe(200);
      delays.gone.push(await eventually(async () => !(await found(1, word)).includes(id), 20_000, 10));
      expect((await call(1, 'GET', `/objects/${id}`)).status).toBe(404);
    }
  });

  it('finds on B, started again, what A wrote while B was stopped', async () => {
    const before = await call(0, 'POST', '/objects', { title: 'Before', content: 'Shearwaters fly low over the waves.' });
    await eventually(async () => (await found(1, 'shearwaters')).includes(before.body.object_id), 20_000, 10);
    await set.kill(1, 'SIGTERM');
    const meanwhile = await call(0, 'POST', '/objects', { title: 'Meanwhile', content: 'Storm petrels patter on the water.' });
    expect(meanwhile.status).toBe(201);
    expect((await call(0, 'DELETE', `/objects/${before.body.object_id}`)).status).toBe(200);
    await set.restart(1);
    await eventually(async () => (await found(1, 'petrels')).includes(meanwhile.body.object_id), 20_000, 10);
    expect(await found(1, 'shearwaters')).toEqual([]);
  }, 120_000);

  it('ingests and reindexes with the CLI on PostgreSQL: both replicas find the files', async () => {
    const docs = mkdtempSync(join(tmpdir(), 'replica-ingest-'));
    try {
      writeFileSync(join(docs, 'auks.txt'), 'Little auks winter on the pack ice.');
      writeFileSync(join(docs, 'skuas.md'), '# Skuas\n\nSkuas chase other seabirds for their catch.');
      const ingest = await cli(1, ['ingest', docs, '--tenant', TENANT]);
      expect(ingest.stderr).toBe('');
      expect(JSON.parse(ingest.stdout)).toMatchObject({ files: 2, created: 2 });
      const again = await cli(0, ['ingest', docs, '--tenant', TENANT]);
      expect(JSON.parse(again.stdout)).toMatchObject({ files: 2, created: 0, unchanged: 2 });
      for (const i of [0, 1]) await eventually(async () => (await found(i, 'skuas seabirds')).length === 1, 20_000, 10);
      const reindex = await cli(0, ['reindex']);
      expect(reindex.status).toBe(0);
      expect(JSON.parse(reindex.stdout).passages).toBeGreaterThanOrEqual(2);
      for (const i of [0, 1]) {
        await eventually(
          async () => {
            const r = await call(
              i,
              'POST',
              `/semantic?${new URLSearchParams({ query_string: 'little auks pack ice', page_size: '3' })}`,
              {},
            );
            return r.status === 200 && r.body.result[0]?.title === 'auks.txt';
          },
          20_000,
          10,
        );
      }
    } finally {
      rmSync(docs, { recursive: true, force: true });
    }
  }, 60_000);
});
