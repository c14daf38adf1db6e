import { join } from 'node:path';
import { AUDIT_PG_MIGRATIONS } from '../../../core/shared/admin/postgres-audit';
import { REPLICAS_PG_MIGRATIONS } from '../../../core/shared/overview/postgres-replicas';
import { SERVICES } from '../../../services/registry';
import { describePg, freshDatabase } from '../../shared/postgres';
import { ROOT, run } from './server';

const platform = (args: string[], env: Record<string, string>) =>
  run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], { env });

describe('platform migrate', () => {
  it('without DATABASE_URL says there is nothing to migrate (SQLite files migrate as they open)', async () => {
    const ran = await platform(['migrate'], {});
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('DATABASE_URL is not set');
  });

  it('a server that cannot be reached is named, its password masked', async () => {
    const ran = await platform(['migrate'], { DATABASE_URL: 'postgres://someone:sekret@127.0.0.1:1/platform' });
    expect(ran.status).toBe(1);
    expect(JSON.parse(ran.stderr).error).toMatch(
      /^PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/platform cannot be used: connect ECONNREFUSED/,
    );
    expect(ran.stderr).not.toContain('sekret');
  });
});

describePg('platform migrate on PostgreSQL', () => {
  it("brings every service's tables to this version once; a second run has nothing to do", async () => {
    const db = await freshDatabase();
    try {
      const versions = Object.fromEntries(SERVICES.filter((m) => m.migrations?.length).map((m) => [m.name, m.migrations!.length]));
      expect(Object.keys(versions).sort()).toEqual(['models', 'search', 'token']);
      // The audit trail's tables, every service's, under their own scope.
      versions.audit = AUDIT_PG_MIGRATIONS.length;
      // The replicas seen (the overview's heartbeats), every process's.
      versions.replicas = REPLICAS_PG_MIGRATIONS.length;
      const first = await platform(['migrate'], { DATABASE_URL: db.url });
      expect(first.status).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ database: db.url, applied: versions, versions });
      const second = await platform(['migrate'], { DATABASE_URL: db.url });
      expect(JSON.parse(second.stdout).applied).toEqual(Object.fromEntries(Object.keys(versions).map((n) => [n, 0])));
    } finally {
      await db.drop();
    }
  });
});
