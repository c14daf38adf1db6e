import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { FIRST_START_FIELDS } from '../shared/first-start-fields';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { describePg, freshDatabase } from '../../shared/postgres';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { freePort } from '../shared/server';

jest.setTimeout(120_000);

/**
 * Two `platform start` processes started at the same moment on one fresh PostgreSQL database, each
 * with its own data directory (as the replicas docs start them): one bootstrap for both.
 */
describePg('replicas started at the same moment on a fresh database', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'platform-boot-once-')));
  let procs: PlatformProcess[] = [];

  beforeAll(async () => {
    db = await freshDatabase();
    const ports = await Promise.all(dirs.map(() => freePort()));
    const publicUrl = `http://127.0.0.1:${ports[0]}`;
    // One primary with workers (its bootstrap runs before it forks) and one single process: both paths.
    procs = await Promise.all(
      dirs.map((dir, i) =>
        startPlatformProcess(['start'], {
          DATABASE_URL: db.url,
          PUBLIC_URL: publicUrl,
          PORT: String(ports[i]),
          PLATFORM_DATA_DIR: dir,
          WORKERS: String(i + 1),
          LOG_LEVEL: 'warn',
          MODELS_TEXT_THREADS: '0',
        }),
      ),
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProcess(p.child)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await db?.drop();
  });

  const count = async (sql: string) => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return Number((await c.query<{ n: string }>(sql)).rows[0].n);
    } finally {
      await c.end();
    }
  };

  it('makes one realm, one demo client, one demo user, one platform administrator and one LM key', async () => {
    expect(await count('SELECT count(*) AS n FROM token_realms')).toBe(1);
    expect(await count("SELECT count(*) AS n FROM token_clients WHERE client_id LIKE 'demo-client%'")).toBe(1);
    expect(await count('SELECT count(*) AS n FROM token_users')).toBe(2);
    expect(await count(`SELECT count(*) AS n FROM token_users WHERE roles @> '["platform-admin"]'`)).toBe(1);
    expect(await count('SELECT count(*) AS n FROM models_api_keys')).toBe(1);
  });

  it('gives the secrets to the one that made them; the other keeps their ids and says where the secrets are', async () => {
    const files = dirs.map((d) => JSON.parse(readFileSync(join(d, 'bootstrap.json'), 'utf8')) as Record<string, string>);
    const maker = files.findIndex((f) => f.client_secret);
    expect(maker).toBeGreaterThanOrEqual(0);
    const other = 1 - maker;
    expect(Object.keys(files[maker]).sort()).toEqual(FIRST_START_FIELDS);
    expect(files[other]).toEqual({
      realm: files[maker].realm,
      tenant_id: files[maker].tenant_id,
      client_id: files[maker].client_id,
      username: files[maker].username,
      admin_username: files[maker].admin_username,
    });
    expect(procs[maker].output()).toContain('First start');
    expect(procs[other].output()).not.toContain('First start');
    expect(procs[other].output()).toContain("their secrets are in that replica's bootstrap.json");
    // The maker's credentials work on either replica.
    for (const p of procs) {
      const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          realm: files[maker].realm,
          client_id: files[maker].client_id,
          client_secret: files[maker].client_secret,
        }),
      });
      expect(res.status).toBe(200);
      const models = await fetch(`${p.url}/proxy/api/v1/models`, { headers: { 'api-key': files[maker].api_key } });
      expect(models.status).toBe(200);
    }
  });

  it('makes nothing more when they start again', async () => {
    await Promise.all(procs.map((p) => stopProcess(p.child)));
    const ports = procs.map((p) => new URL(p.url).port);
    procs = await Promise.all(
      dirs.map((dir, i) =>
        startPlatformProcess(['start'], {
          DATABASE_URL: db.url,
          PUBLIC_URL: `http://127.0.0.1:${ports[0]}`,
          PORT: ports[i],
          PLATFORM_DATA_DIR: dir,
          WORKERS: '1',
          LOG_LEVEL: 'warn',
          MODELS_TEXT_THREADS: '0',
        }),
      ),
    );
    expect(await count('SELECT count(*) AS n FROM token_users')).toBe(2);
    expect(await count('SELECT count(*) AS n FROM models_api_keys')).toBe(1);
    for (const p of procs) expect(p.output()).not.toContain('First start');
  });
});
