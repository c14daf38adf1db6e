import { migrateDatabase } from '../../../../bin/migrate';
import { AUDIT_PG_MIGRATIONS } from '../../../../core/shared/admin/postgres-audit';
import { loadConfig } from '../../../../core/shared/config';
import { REPLICAS_PG_MIGRATIONS } from '../../../../core/shared/overview/postgres-replicas';
import { openPool } from '../../../../core/shared/postgres';
import { describePg, freshDatabase } from '../../../shared/postgres';

/** `platform migrate` makes the audit trail's tables too (scope `audit`), and the replicas seen (scope `replicas`), once. */
describePg('platform migrate and the audit trail', () => {
  it('creates audit_events and platform_replicas under their own scopes; a second run has nothing to do', async () => {
    const db = await freshDatabase();
    try {
      const config = loadConfig({ DATABASE_URL: db.url });
      const first = await migrateDatabase(config, []);
      const versions = { audit: AUDIT_PG_MIGRATIONS.length, replicas: REPLICAS_PG_MIGRATIONS.length };
      expect(first).toMatchObject({ applied: versions, versions });
      expect((await migrateDatabase(config, [])).applied).toEqual({ audit: 0, replicas: 0 });
      const pool = openPool(db.url, { max: 1 });
      try {
        expect((await pool.query('SELECT count(*)::int AS n FROM audit_events')).rows[0]).toEqual({ n: 0 });
        expect((await pool.query('SELECT count(*)::int AS n FROM platform_replicas')).rows[0]).toEqual({ n: 0 });
      } finally {
        await pool.end();
      }
    } finally {
      await db.drop();
    }
  });
});
