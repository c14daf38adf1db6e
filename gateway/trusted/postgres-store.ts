import { migrateAt, transaction, type PgPool } from '../../core/shared/postgres';
import { appOf, clash, documentOf, TRUSTED_MIGRATIONS, type TrustedStore } from './store';

/** Any fixed number: the lock under which loads and removals of trusted documents take turns. */
const TRUSTED_LOCK = 0x74727573; // "trus"

/**
 * The trusted documents in DATABASE_URL (scope `graphql`): every replica reads the same lists.
 * Changes take a transaction-scoped advisory lock, so two loads never interleave their checks.
 */
export async function pgTrustedStore(url: string, pool: PgPool): Promise<TrustedStore> {
  await migrateAt(url, pool, 'graphql', TRUSTED_MIGRATIONS);
  const bump = 'UPDATE trusted_generation SET generation = generation + 1';
  return {
    replace: (app, format, documents, now) =>
      transaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [TRUSTED_LOCK]);
        const ids = documents.map((d) => d.id);
        const { rows } = await client.query<{ app: string; id: string; body: string }>(
          'SELECT app, id, body FROM trusted_documents WHERE id = ANY($1) AND app <> $2',
          [ids, app],
        );
        const bodies = new Map(documents.map((d) => [d.id, d.body]));
        const taken = rows.find((r) => bodies.get(r.id) !== r.body);
        if (taken) throw clash(taken.id, taken.app);
        await client.query('DELETE FROM trusted_documents WHERE app = $1', [app]);
        await client.query(
          `INSERT INTO trusted_documents (app, id, body, sha256, name, type)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`,
          [
            app,
            ids,
            documents.map((d) => d.body),
            documents.map((d) => d.sha256),
            documents.map((d) => d.name ?? null),
            documents.map((d) => d.type),
          ],
        );
        await client.query(
          `INSERT INTO trusted_apps (app, format, documents, loaded_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (app) DO UPDATE SET format = excluded.format, documents = excluded.documents, loaded_at = excluded.loaded_at`,
          [app, format, documents.length, now],
        );
        await client.query(bump);
        return { app, format, documents: documents.length, loadedAt: now };
      }),
    remove: (app) =>
      transaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [TRUSTED_LOCK]);
        await client.query('DELETE FROM trusted_documents WHERE app = $1', [app]);
        const gone = ((await client.query('DELETE FROM trusted_apps WHERE app = $1', [app])).rowCount ?? 0) > 0;
        if (gone) await client.query(bump);
        return gone;
      }),
    apps: async () => (await pool.query('SELECT * FROM trusted_apps ORDER BY app')).rows.map(appOf),
    generation: async () =>
      Number((await pool.query<{ generation: string }>('SELECT generation FROM trusted_generation')).rows[0].generation),
    snapshot: () =>
      transaction(pool, async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        const generation = Number(
          (await client.query<{ generation: string }>('SELECT generation FROM trusted_generation')).rows[0].generation,
        );
        const { rows } = await client.query('SELECT * FROM trusted_documents ORDER BY app, id');
        return { generation, documents: rows.map(documentOf) };
      }),
    close: () => undefined,
  };
}
