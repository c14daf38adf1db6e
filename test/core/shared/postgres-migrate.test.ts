import { DatabaseTooNew, migrate, openPool, type PgPool } from '../../../core/shared/postgres';
import { describePg, freshDatabase } from '../../shared/postgres';

const MIGRATIONS = ['CREATE TABLE a (x INTEGER)', "CREATE TABLE b (y TEXT); INSERT INTO b VALUES ('one')"];

describePg('PostgreSQL migrations (platform_migrations)', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pools: PgPool[];
  beforeEach(async () => {
    db = await freshDatabase();
    pools = [];
  });
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db.drop();
  });
  const pool = () => {
    const p = openPool(db.url, { max: 2 });
    pools.push(p);
    return p;
  };

  it('applies each migration once, records it, and applies only the new ones later', async () => {
    const p = pool();
    expect(await migrate(p, 'test', MIGRATIONS.slice(0, 1))).toBe(1);
    expect(await migrate(p, 'test', MIGRATIONS)).toBe(1);
    expect(await migrate(p, 'test', MIGRATIONS)).toBe(0);
    expect((await p.query('SELECT scope, version FROM platform_migrations ORDER BY version')).rows).toEqual([
      { scope: 'test', version: 1 },
      { scope: 'test', version: 2 },
    ]);
    expect((await p.query('SELECT y FROM b')).rows).toEqual([{ y: 'one' }]);
  });

  it('keeps each scope apart', async () => {
    const p = pool();
    await migrate(p, 'one', ['CREATE TABLE t1 (x INTEGER)']);
    expect(await migrate(p, 'two', ['CREATE TABLE t2 (x INTEGER)', 'CREATE TABLE t3 (x INTEGER)'])).toBe(2);
    expect(await migrate(p, 'one', ['CREATE TABLE t1 (x INTEGER)'])).toBe(0);
  });

  it('applies each migration once when replicas start at the same moment (each its own pool)', async () => {
    const applied = await Promise.all(Array.from({ length: 6 }, () => migrate(pool(), 'test', MIGRATIONS)));
    expect(applied.reduce((a, b) => a + b, 0)).toBe(2);
    expect((await pools[0].query('SELECT count(*)::int AS n FROM b')).rows).toEqual([{ n: 1 }]);
  });

  it('leaves nothing half done when a migration fails, and says which', async () => {
    const p = pool();
    await expect(migrate(p, 'test', ['CREATE TABLE ok (x INTEGER)', 'CREATE TABLE broken (x NOSUCHTYPE)'])).rejects.toThrow(
      /test migration 2 failed.*nosuchtype/i,
    );
    expect((await p.query("SELECT to_regclass('ok') AS t, to_regclass('platform_migrations') AS m")).rows).toEqual([{ t: null, m: null }]);
    expect(await migrate(p, 'test', ['CREATE TABLE ok (x INTEGER)'])).toBe(1);
  });

  it('refuses a database migrated by a newer platform', async () => {
    const p = pool();
    await migrate(p, 'test', MIGRATIONS);
    await expect(migrate(p, 'test', MIGRATIONS.slice(0, 1))).rejects.toBeInstanceOf(DatabaseTooNew);
  });
});
