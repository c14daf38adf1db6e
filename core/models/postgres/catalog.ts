import type { PgPool } from '../../shared/postgres';
import type { CatalogModel } from '../catalog/catalog';
import type { CatalogStore, StoredModel } from '../catalog/catalog-store';

interface CatalogRow {
  id: string;
  entry: CatalogModel | null;
  active: boolean;
  version: number;
  updated_at: Date;
  updated_by: string;
}

const toStored = (r: CatalogRow): StoredModel => ({
  id: r.id,
  entry: r.entry,
  active: r.active,
  version: r.version,
  updatedAt: r.updated_at.getTime(),
  updatedBy: r.updated_by,
});

const COLUMNS = 'id, entry, active, version, updated_at, updated_by';

/**
 * The catalog's run-time changes in PostgreSQL (`models_catalog`), seen by every replica. Each write
 * is one statement, its condition in its WHERE or ON CONFLICT clause. `generation` is the sum of
 * the versions: each committed write adds to it and none takes away, so a replica polling it never
 * misses a commit (a sequence could be read past a slower transaction still to commit).
 */
export function pgCatalogStore(pool: PgPool): CatalogStore {
  const one = async (name: string, text: string, values: unknown[]) => {
    const { rows } = await pool.query<CatalogRow>({ name, text, values });
    return rows[0] ? toStored(rows[0]) : undefined;
  };
  return {
    list: async () => {
      const { rows } = await pool.query<CatalogRow>({
        name: 'models.catalog.list',
        text: `SELECT ${COLUMNS} FROM models_catalog ORDER BY id COLLATE "C"`,
      });
      return rows.map(toStored);
    },
    generation: async () => {
      const { rows } = await pool.query<{ g: string }>({
        name: 'models.catalog.generation',
        text: 'SELECT coalesce(sum(version), 0)::text AS g FROM models_catalog',
      });
      return Number(rows[0].g);
    },
    write: (w, cond, firstVersion) => {
      // $7: the write keeps the row's entry (a change of state only).
      const values = [
        w.id,
        w.entry === undefined ? null : JSON.stringify(w.entry),
        w.active,
        0,
        new Date(w.at),
        w.by,
        w.entry === undefined,
      ];
      if (cond === 'any') {
        values[3] = firstVersion;
        return one(
          'models.catalog.upsert',
          `INSERT INTO models_catalog (${COLUMNS}) VALUES ($1, $2::jsonb, $3, $4, $5, $6)
          ON CONFLICT (id) DO UPDATE SET entry = CASE WHEN $7::boolean THEN models_catalog.entry ELSE excluded.entry END,
            active = excluded.active, version = models_catalog.version + 1,
            updated_at = excluded.updated_at, updated_by = excluded.updated_by
          RETURNING ${COLUMNS}`,
          values,
        );
      }
      if (cond === 'absent') {
        values[3] = firstVersion;
        return one(
          'models.catalog.insert',
          `INSERT INTO models_catalog (${COLUMNS}) VALUES ($1, $2::jsonb, $3, $4, $5, $6)
          ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
          values.slice(0, 6),
        );
      }
      values[3] = cond.version;
      return one(
        'models.catalog.update',
        `UPDATE models_catalog SET entry = CASE WHEN $7::boolean THEN entry ELSE $2::jsonb END, active = $3,
          version = version + 1, updated_at = $5, updated_by = $6
        WHERE id = $1 AND version = $4 RETURNING ${COLUMNS}`,
        values,
      );
    },
  };
}
