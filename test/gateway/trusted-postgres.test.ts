import pino from 'pino';
import { openPool, type PgPool } from '../../core/shared/postgres';
import { sha256Hex } from '../../gateway/trusted/manifest';
import { pgTrustedStore } from '../../gateway/trusted/postgres-store';
import { trustedRegistry } from '../../gateway/trusted/registry';
import { DATABASE_URL, describePg, freshDatabase } from '../shared/postgres';

/**
 * The trusted documents in PostgreSQL, as two replicas share them: a list one loads, the other's
 * registry reads on its next refresh; loads are atomic and an id stays one document across apps.
 */
const doc = (id: string, body: string) => ({ id, body, sha256: sha256Hex(body), type: 'query' as const });
const A = 'query A { realm { id } }';
const B = 'query B { realm { name } }';

describePg('trusted documents on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pools: PgPool[];
  beforeAll(async () => {
    db = await freshDatabase();
    pools = [openPool(db.url, { max: 2 }), openPool(db.url, { max: 2 })];
  });
  afterAll(async () => {
    for (const pool of pools ?? []) await pool.end();
    await db?.drop();
  });

  it("shares every app's list between replicas, changed atomically", async () => {
    expect(DATABASE_URL).toBeDefined();
    const [one, two] = await Promise.all(pools.map((pool) => pgTrustedStore(db.url, pool)));
    const registry = await trustedRegistry(two, { log: pino({ level: 'silent' }), refreshMs: 3_600_000 });
    try {
      expect(registry.size()).toBe(0);
      await one.replace('web', 'apollo-persisted-query-manifest', [doc(sha256Hex(A), A), doc('b', B)], 1000);
      await registry.refresh();
      expect(registry.text(sha256Hex(A))).toBe(A);
      expect(registry.text(`sha256:${sha256Hex(B)}`)).toBe(B);
      await expect(two.replace('ios', 'graphql-codegen-persisted-documents', [doc('b', A)], 2000)).rejects.toMatchObject({
        code: 'DOCUMENT_ID_TAKEN',
      });
      await two.replace('ios', 'graphql-codegen-persisted-documents', [doc('b', B)], 2000);
      expect(await one.apps()).toEqual([
        { app: 'ios', format: 'graphql-codegen-persisted-documents', documents: 1, loadedAt: 2000 },
        { app: 'web', format: 'apollo-persisted-query-manifest', documents: 2, loadedAt: 1000 },
      ]);
      expect(await one.remove('web')).toBe(true);
      expect(await one.remove('web')).toBe(false);
      await registry.refresh();
      expect(registry.text(sha256Hex(A))).toBeUndefined();
      expect(registry.text('b')).toBe(B);
      expect(await two.generation()).toBe(3);
    } finally {
      registry.close();
    }
  });
});
