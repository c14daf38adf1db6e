import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { configParts } from '../../../bin/deps';
import { loadConfig } from '../../../core/shared/config';
import { testModules } from '../../shared/helpers';
import { freePort, platformCli, run } from './server';

/**
 * `platform backup` (its own process) while the platform serves and writes, then the restore the docs give (copy
 * the files into a new data directory) and a server on it: what was there before the backup is all there.
 */
describe('platform backup and restore', () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-backup-'));
  const dataDir = join(root, 'data');
  const backupDir = join(root, 'backup');
  const restored = join(root, 'restored');
  let port: string;
  let server: RunningPlatform | undefined;
  let boot: Record<string, string>;
  let token: string;
  const before: string[] = [];
  let writes: { acked: string[]; error?: unknown };

  // The same port (so the same issuer) before and after the restore.
  const start = async (dir: string) => {
    const modules = testModules();
    const config = loadConfig({ PORT: port, PLATFORM_DATA_DIR: dir, LOG_LEVEL: 'silent' }, configParts(modules));
    server = await startPlatform(config, { modules, log: pino({ level: 'silent' }) });
  };
  const call = (path: string, init: RequestInit = {}) => fetch(`${server!.url}${path}`, init);
  const bearer = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const addObject = async (i: number, tag: string) => {
    const r = await call('/cl/search/api/v2/objects', {
      method: 'POST',
      headers: bearer(),
      body: JSON.stringify({ title: `Note ${i}`, content: `backupcheck marker${i} about glaciers`, tags: [tag] }),
    });
    if (r.status !== 201) throw new Error(`ingest answered ${r.status}: ${await r.text()}`);
    return ((await r.json()) as { object_id: string }).object_id;
  };

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('copies every store while the server runs and objects are being added', async () => {
    port = String(await freePort());
    await start(dataDir);
    boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    const t = await call('/auth/api/v1/oauth/connect/token', {
      method: 'POST',
      body: new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret }),
    });
    expect(t.status).toBe(200);
    token = ((await t.json()) as { access_token: string }).access_token;
    for (let i = 0; i < 30; i++) before.push(await addObject(i, 'before'));

    // A writer keeps adding objects from before the backup starts until after it ends (it stops at its first failure).
    let writing = true;
    writes = { acked: [] };
    const writer = (async () => {
      for (let i = 1000; writing && i < 5000; i++) writes.acked.push(await addObject(i, 'during'));
    })().catch((err: unknown) => void (writes.error = err));
    while (writes.acked.length < 3 && writes.error === undefined) await new Promise((r) => setTimeout(r, 20));
    const b = await platformCli(dataDir, ['backup', backupDir]);
    writing = false;
    await writer;

    expect(b.stderr).toBe('');
    expect(b.status).toBe(0);
    const out = JSON.parse(b.stdout) as { backup: string; files: { name: string; kind: string; bytes: number }[] };
    expect(out.backup).toBe(backupDir);
    // audit.db: the audit trail (sign-ins of the token requests above among its events); replicas.db:
    // the heartbeats of the overview (a restored one shows its replicas gone, and forgets them after a day).
    expect(out.files.map((f) => `${f.name}:${f.kind}`)).toEqual([
      'audit.db:sqlite',
      'bootstrap.json:file',
      'gateway.db:sqlite',
      'models.db:sqlite',
      'replicas.db:sqlite',
      'search.db:sqlite',
      'token.db:sqlite',
      'trusted-documents.db:sqlite',
    ]);
    expect(readdirSync(backupDir).sort()).toEqual([
      'audit.db',
      'bootstrap.json',
      'gateway.db',
      'models.db',
      'replicas.db',
      'search.db',
      'token.db',
      'trusted-documents.db',
    ]);
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(backupDir)) expect(statSync(join(backupDir, f)).mode & 0o777).toBe(0o600);
    expect(writes.error).toBeUndefined();
  }, 180_000);

  it('restores into a new data directory: the old token still verifies, and every object is found', async () => {
    await server!.close();
    server = undefined;
    // The restore of docs/production.md: a new, owner-only directory, the files copied with their modes.
    mkdirSync(restored, { mode: 0o700 });
    const cp = await run('sh', ['-c', `cp -p "${backupDir}"/* "${restored}"/`]);
    expect(cp.status).toBe(0);
    await start(restored);

    const introspect = await call('/auth/api/v1/oauth/connect/introspect', {
      method: 'POST',
      body: new URLSearchParams({ realm: boot.realm, token }),
    });
    expect(await introspect.json()).toMatchObject({ active: 'true', client_id: boot.client_id });
    for (const id of before) expect((await call(`/cl/search/api/v2/objects/${id}`, { headers: bearer() })).status).toBe(200);

    const found = await call('/cl/search/api/v2/fulltext?query_string=marker7', { method: 'POST', headers: bearer() });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { result: { object_id: string }[] }).result.map((r) => r.object_id)).toEqual([before[7]]);
    // Objects added during the backup are each there whole (found by id and by search) or not at all.
    const kept = [];
    for (const id of writes.acked) {
      const status = (await call(`/cl/search/api/v2/objects/${id}`, { headers: bearer() })).status;
      expect([200, 404]).toContain(status);
      if (status === 200) kept.push(id);
    }
    const all = await call('/cl/search/api/v2/fulltext?query_string=backupcheck&page_size=100', { method: 'POST', headers: bearer() });
    expect(((await all.json()) as { result_count: number }).result_count).toBe(before.length + kept.length);
    // The LM key (models.db) and the first start's credentials came back too.
    expect((await call('/proxy/api/v1/models', { headers: { 'api-key': boot.api_key } })).status).toBe(200);
    const login = await call('/auth/api/v1/oauth/connect/token', {
      method: 'POST',
      body: new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret }),
    });
    expect(login.status).toBe(200);
  }, 180_000);
});
