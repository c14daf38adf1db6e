import { migrateDatabase } from '../../../../bin/migrate';
import { AUDIT_PG_MIGRATIONS } from '../../../../core/shared/admin/postgres-audit';
import { loadConfig } from '../../../../core/shared/config';
import { openPool } from '../../../../core/shared/postgres';
import { describePg, freshDatabase } from '../../../shared/postgres';

/** `platform migrate` makes the audit trail's tables too (scope `audit`), once. */
describePg('platform migrate and the audit trail', () => {
  it('creates audit_events under its own scope; a second run has nothing to do', async () => {
    const db = await freshDatabase();
    try {
      const config = loadConfig({ DATABASE_URL: db.url });
      const first = await migrateDatabase(config, []);
      expect(first).toMatchObject({ applied: { audit: AUDIT_PG_MIGRATIONS.length }, versions: { audit: AUDIT_PG_MIGRATIONS.length } });
      expect((await migrateDatabase(config, [])).applied).toEqual({ audit: 0 });
      const pool = openPool(db.url, { max: 1 });
      try {
        expect((await pool.query('SELECT count(*)::int AS n FROM audit_events')).rows[0]).toEqual({ n: 0 });
      } finally {
        await pool.end();
      }
    } finally {
      await db.drop();
    }
  });
});
